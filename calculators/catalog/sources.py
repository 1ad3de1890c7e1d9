"""Citations for catalog values: which document a number came from, when, and what kind it is.

Every catalog record carries a :class:`Source`. ``kind`` says how far to trust the
number: ``"spec"`` is a vendor datasheet or whitepaper figure, ``"measured"`` is a
reading taken on real hardware, ``"derived"`` is arithmetic on cited figures (halving
a sparsity headline, cores x clock), ``"assumed"`` is a stated assumption.

>>> s = Source("NVIDIA H100 datasheet", "https://www.nvidia.com/en-us/data-center/h100/", "2026-11-21")
>>> s.kind
'spec'
>>> Source("half of the sparse headline", s.url, s.as_of, kind="derived").kind
'derived'
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Kind = Literal["spec", "measured", "derived", "assumed"]


@dataclass(frozen=True)
class Source:
    """Where a catalog value comes from: publisher document, URL, the date it was read, and what kind of number it is.

    Attributes:
        title: Publisher and document title, e.g. "NVIDIA H100 Tensor Core GPU datasheet".
        url: Address of the document.
        as_of: ISO date (YYYY-MM-DD): the document's own date where it prints one,
            otherwise the date it was read.
        kind: ``"spec"``, ``"measured"``, ``"derived"`` or ``"assumed"``.
    """

    title: str
    url: str
    as_of: str  # ISO date (YYYY-MM-DD) the value was read/published
    kind: Kind = "spec"
