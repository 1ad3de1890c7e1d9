"""A quoted claim from a source guide, our figure for the same conditions, and the computed verdict.

A :class:`Claim` holds the quoted text (verbatim, short), the file and section it comes
from, the conditions it implies (with the assumptions we had to add), the claimed value
or range with its unit, and a function returning our :class:`Figure` for those
conditions. A figure is one or more :class:`Case`: the settings the claim leaves open
(batch, sequence length, checkpointing, which GPU variant) are spanned by cases, so the
verdict can say *when* a claim holds:

* **holds**: every case is within the claimed value or range, widened by the tolerance;
* **holds only when ...**: some cases are, and the verdict names them;
* **wrong**: no case is;
* **not checked**: no calculator or catalog record covers it (the reason is given).

A claim's ``bound`` says how to compare: ``"about"`` (inside ``[low, high]``),
``"at most"`` (our figure must not exceed it: a memory need against a GPU's capacity)
or ``"at least"`` (our figure must reach it).

>>> claim = Claim(id="demo", source="x.txt", section="s", quote="7B x 16 bytes = 112 GB", subject="training",
...               conditions="7e9 parameters, 16 bytes each", low=112, high=112, unit="GB",
...               figure=lambda: Figure(cases=(Case("arithmetic", 7e9 * 16 / 1e9),), unit="GB",
...                                     function="arithmetic", page="memory/index.md"),
...               why="7e9 x 16 B = 112e9 B.")
>>> evaluate(claim).verdict
'holds'
>>> case_holds(claim, 130.0), case_holds(claim, 120.0)  # 10 % tolerance: up to 123.2 GB
(False, True)
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from calculators.errors import InputError

#: Relative tolerance when the claim gives a plain value or range.
TOLERANCE = 0.10
#: Relative tolerance when the claim hedges ("about", "approximately", "roughly", "~").
APPROX_TOLERANCE = 0.15
#: Relative tolerance for exact counts (parameters, GPU memory, link rates): no rounding excuse.
EXACT_TOLERANCE = 0.05

VERDICT_HOLDS = "holds"
VERDICT_ONLY_WHEN = "holds only when"
VERDICT_WRONG = "wrong"
VERDICT_NOT_CHECKED = "not checked"
#: Verdicts in display order.
VERDICTS: tuple[str, ...] = (VERDICT_HOLDS, VERDICT_ONLY_WHEN, VERDICT_WRONG, VERDICT_NOT_CHECKED)
BOUNDS: tuple[str, ...] = ("about", "at most", "at least")

#: Subjects, in page order: (key, heading).
SUBJECTS: tuple[tuple[str, str], ...] = (
    ("training", "Training and fine-tuning memory"),
    ("inference", "Weights, inference memory and quantisation"),
    ("parameters", "Parameters and mixture of experts"),
    ("interconnect", "Bandwidth, interconnect and compute"),
    ("system", "GPU specs, system memory and CPU cores"),
    ("cost", "Cost"),
)


@dataclass(frozen=True)
class Case:
    """Our figure under one reading of the claim's conditions, in the claim's unit."""

    label: str
    value: float


@dataclass(frozen=True)
class Figure:
    """Our figures for a claim: the cases, their unit, and the function and docs page behind them.

    ``kind`` says what sort of number it is: ``"derived"`` (computed by the calculators),
    ``"spec"`` (a catalog record's datasheet value) or ``"measured"``.
    """

    cases: tuple[Case, ...]
    unit: str
    function: str
    page: str
    kind: str = "derived"

    def pairs(self) -> list[tuple[str, float]]:
        """The cases as ``(label, value)`` pairs (to extend a figure with more cases)."""
        return [(case.label, case.value) for case in self.cases]


class NotChecked(Exception):
    """Raised by a figure function when the data it needs is unknown (e.g. an unpriced GPU)."""


@dataclass(frozen=True)
class Claim:
    """One numeric claim of a source guide, with how to compute our figure for it.

    Attributes:
        id: stable slug, unique.
        source: file name in the sources folder.
        section: heading the quote sits under.
        quote: the claim's words, verbatim (whitespace aside).
        subject: one of the keys of :data:`SUBJECTS`.
        conditions: what the claim implies (model, dtype, method...) and what we assumed.
        low, high: the claimed value or range in ``unit`` (equal for a single value);
            ``None`` for a claim we do not check.
        unit: the claim's unit ("GB" = 10^9 bytes, "GiB", "B/param", "%", "x", "USD/h"...).
        figure: returns our :class:`Figure`; ``None`` when not checked.
        why: short, specific explanation in our words.
        bound: ``"about"``, ``"at most"`` or ``"at least"`` (see the module docstring).
        tolerance: relative widening of the claimed range.
        not_checked: the reason, when ``figure`` is ``None``.
    """

    id: str
    source: str
    section: str
    quote: str
    subject: str
    conditions: str
    low: float | None
    high: float | None
    unit: str
    figure: Callable[[], Figure] | None
    why: str
    bound: str = "about"
    tolerance: float = TOLERANCE
    not_checked: str = ""

    def __post_init__(self) -> None:
        if self.bound not in BOUNDS:
            raise InputError("bound", self.bound, ", ".join(BOUNDS))
        if self.subject not in dict(SUBJECTS):
            raise InputError("subject", self.subject, ", ".join(dict(SUBJECTS)))
        if (self.figure is None) != bool(self.not_checked):
            raise InputError("not_checked", self.not_checked, "a reason exactly when figure is None")
        if self.figure is not None and (self.low is None or self.high is None or self.low > self.high):
            raise InputError("low/high", (self.low, self.high), "low <= high for a checked claim")


@dataclass(frozen=True)
class Evaluated:
    """A claim with our figure and the verdict."""

    claim: Claim
    figure: Figure | None
    verdict: str
    holding: tuple[str, ...] = ()
    reason: str = ""

    @property
    def verdict_text(self) -> str:
        """The verdict as shown: "holds only when" is followed by the cases that hold."""
        if self.verdict == VERDICT_ONLY_WHEN:
            return f"{VERDICT_ONLY_WHEN} {'; '.join(self.holding)}"
        return self.verdict


def case_holds(claim: Claim, value: float) -> bool:
    """True when ``value`` satisfies the claim's bound, within its tolerance.

    >>> c = Claim(id="c", source="s", section="s", quote="q", subject="cost", conditions="", low=1, high=2,
    ...           unit="USD/h", figure=lambda: Figure((), "USD/h", "f", "p"), why="", bound="at most")
    >>> case_holds(c, 2.19), case_holds(c, 2.21)
    (True, False)
    """
    if claim.low is None or claim.high is None:
        raise InputError("low/high", None, "a claimed value")
    low = claim.low * (1 - claim.tolerance)
    high = claim.high * (1 + claim.tolerance)
    if claim.bound == "at most":
        return value <= high
    if claim.bound == "at least":
        return value >= low
    return low <= value <= high


def evaluate(claim: Claim) -> Evaluated:
    """Compute our figure for a claim and its verdict (see the module docstring)."""
    if claim.figure is None:
        return Evaluated(claim, None, VERDICT_NOT_CHECKED, reason=claim.not_checked)
    try:
        figure = claim.figure()
    except NotChecked as unknown:
        return Evaluated(claim, None, VERDICT_NOT_CHECKED, reason=str(unknown))
    if not figure.cases:
        raise InputError("cases", claim.id, "at least one case")
    holding = tuple(case.label for case in figure.cases if case_holds(claim, case.value))
    if len(holding) == len(figure.cases):
        return Evaluated(claim, figure, VERDICT_HOLDS, holding)
    if holding:
        return Evaluated(claim, figure, VERDICT_ONLY_WHEN, holding)
    return Evaluated(claim, figure, VERDICT_WRONG)
