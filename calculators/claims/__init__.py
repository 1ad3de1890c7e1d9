"""The rules-of-thumb audit: numeric claims of the source guides, our figures, computed verdicts.

Each :class:`~calculators.claims.record.Claim` quotes a guide, states the conditions the
claim implies and computes our figure with the calculators; :func:`evaluated` returns
every claim with its verdict (holds / holds only when ... / wrong / not checked); claims without
numbers get theirs from published evidence. The
docs page "Rules of thumb, audited" (docs/validation/claims.md) is generated from it.

>>> from collections import Counter
>>> counts = Counter(e.verdict for e in evaluated())
>>> sum(counts.values()) == len(all_claims())
True
"""

from __future__ import annotations

import functools

from calculators.claims import hardware, inference, practice, training
from calculators.claims.record import (
    SUBJECTS,
    VERDICTS,
    Case,
    Claim,
    Evaluated,
    Evidence,
    Figure,
    NotChecked,
    case_holds,
    evaluate,
)
from calculators.claims.scope import OUT_OF_SCOPE

__all__ = ["OUT_OF_SCOPE", "SUBJECTS", "VERDICTS", "Case", "Claim", "Evaluated", "Evidence", "Figure", "NotChecked",
           "all_claims", "case_holds", "evaluate", "evaluated"]


def all_claims() -> tuple[Claim, ...]:
    """Every claim record; ids are unique (raises ``ValueError`` otherwise)."""
    records = (*training.claims(), *inference.claims(), *hardware.claims(), *practice.claims())
    seen: set[str] = set()
    for record in records:
        if record.id in seen:
            raise ValueError(f"claim id {record.id!r} defined twice")
        seen.add(record.id)
    return records


@functools.cache
def evaluated() -> tuple[Evaluated, ...]:
    """Every claim with our figure and its verdict (computed once per process)."""
    return tuple(evaluate(record) for record in all_claims())
