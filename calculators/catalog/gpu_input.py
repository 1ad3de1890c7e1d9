"""A GPU as a user names it: a catalog record, a catalog id, or a ``custom:``/``mac:`` description.

>>> gpu_record("gpu", "h100-sxm").id
'h100-sxm'
>>> gpu_record("gpu", "mac:64").vendor
'Apple'
"""

from __future__ import annotations

from typing import Any

from calculators.catalog.custom_gpu import resolve_gpu
from calculators.catalog.gpus import GPU, gpu_ids
from calculators.errors import UnknownNameError


def gpu_record(field: str, value: Any) -> GPU:
    """Return a :class:`~calculators.catalog.gpus.GPU` for ``value`` (a GPU, a catalog id, or a ``custom:``/``mac:``
    description of :func:`~calculators.catalog.custom_gpu.resolve_gpu`), else :class:`InputError`."""
    if isinstance(value, GPU):
        return value
    if not isinstance(value, str):
        raise UnknownNameError(field, value, gpu_ids())
    try:
        return resolve_gpu(value)
    except UnknownNameError as error:
        raise error.renamed(field) if field != "gpu" else error from None
