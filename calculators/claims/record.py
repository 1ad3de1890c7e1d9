"""A quoted claim from a source guide, our figure for the same conditions, and the computed verdict.

A :class:`Claim` holds the quoted text (verbatim, short), the file and section it comes
from, the conditions it implies (with the assumptions we had to add), the claimed value
or range with its unit, and a function returning our :class:`Figure` for those
conditions. A figure is one or more :class:`Case`: the settings the claim leaves open
(batch, sequence length, checkpointing, the recipe or method, which GPU variant) are
spanned by cases, so the verdict can say *when* a claim holds:

* **holds**: every case that reads the claim is within the claimed value or range,
  widened by the tolerance;
* **holds only when ...**: some are, and the verdict names them and the ones that are not
  ("holds only when full fine-tuning (wrong when QLoRA)");
* **wrong**: none is;
* **not checked**: no calculator or catalog record covers it (the reason is given).

A case is either a *reading* of the claim (a job the claim's words describe: a claim about
training memory is read as training memory) or a *reference* shown beside them for
comparison (the weights alone, model states alone where the claim is about the total);
references never decide a verdict. A case may name its *condition* (the recipe or method
it stands for): when every case of a condition holds, the verdict names the condition
instead of listing its cases.

**Tolerance, one rule for every claim** (:func:`tolerance_for`): a claim that gives one
value with a hedge word ("about", "approximately", "roughly", "around", "~", "close to")
holds within ±20 % of it: "about 2×" covers 1.6–2.4×. Any other stated value or range is
read as written, widened only by ±5 % for the rounding of its figures: a range is never
widened by the hedge band, because a range already states how far the value may be from
its middle (so "60–80 %" is 57–84 %, never 48–96 %). A bound ("at most", "at least":
a job against a card's capacity, a floor) is a yes/no question with no tolerance.

Claims without numbers are audited too: a qualitative claim carries :class:`Evidence`,
a finding with its published source, which gives its verdict. Claims that restate one
rule share a ``rule`` key and get one verdict (``tests/content/test_claims.py`` checks it).

>>> claim = Claim(id="demo", source="x.txt", section="s", quote="7B x 16 bytes = 112 GB", subject="training",
...               conditions="7e9 parameters, 16 bytes each", low=112, high=112, unit="GB",
...               figure=lambda: Figure(cases=(Case("arithmetic", 7e9 * 16 / 1e9),), unit="GB",
...                                     function="arithmetic", page="memory/index.md"),
...               why="7e9 x 16 B = 112e9 B.")
>>> evaluate(claim).verdict
'holds'
>>> case_holds(claim, 118.0), case_holds(claim, 117.0)  # rounding allowance 5 %: up to 117.6 GB
(False, True)
>>> tolerance_for("roughly 126 GB", low=126, high=126, bound="about")  # a hedged single value
0.2
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

from calculators.errors import InputError

#: Relative allowance for the rounding of a stated value or range (specs and counts included).
TOLERANCE = 0.05
#: Relative band of a hedged single value ("about", "approximately", "roughly", "~"...).
APPROX_TOLERANCE = 0.20
#: Exact counts and specs follow the plain rule: only rounding.
EXACT_TOLERANCE = TOLERANCE
#: Words that hedge a single value (matched case-insensitively as words; "~" anywhere).
HEDGE = re.compile(r"~|\b(?:about|approximately|roughly|around|close to|closer to|nearly)\b", re.IGNORECASE)

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
    ("practice", "Statements without numbers"),
)


def tolerance_for(quote: str, *, low: float | None, high: float | None, bound: str) -> float:
    """Relative widening of a claimed value: the one tolerance rule (module docstring).

    >>> tolerance_for("about 2x faster", low=2, high=2, bound="about")
    0.2
    >>> tolerance_for("approximately 60–70%", low=60, high=70, bound="about")  # a range: rounding only
    0.05
    >>> tolerance_for("fits 96 GB", low=96, high=96, bound="at most")
    0.0
    """
    if bound != "about":
        return 0.0
    if low is not None and low == high and HEDGE.search(quote):
        return APPROX_TOLERANCE
    return TOLERANCE


@dataclass(frozen=True)
class Case:
    """Our figure under one reading of the claim's conditions, in the claim's unit.

    ``reading`` is False for a reference shown beside the readings (it never decides the
    verdict); ``condition`` names the recipe or method the case stands for.
    """

    label: str
    value: float
    reading: bool = True
    condition: str = ""


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
        """The reading cases as ``(label, value)`` pairs (to extend a figure with more cases)."""
        return [(case.label, case.value) for case in self.cases if case.reading]


@dataclass(frozen=True)
class Evidence:
    """What decides a claim without a number: a finding, in our words, and the source it rests on.

    ``verdict`` is one of :data:`VERDICTS` (not "not checked"); for "holds only when",
    ``holds_when`` and ``wrong_when`` name the conditions.
    """

    verdict: str
    finding: str
    source_title: str
    url: str
    as_of: str
    holds_when: str = ""
    wrong_when: str = ""

    def __post_init__(self) -> None:
        if self.verdict not in VERDICTS[:3]:
            raise InputError("verdict", self.verdict, ", ".join(VERDICTS[:3]))
        if (self.verdict == VERDICT_ONLY_WHEN) != bool(self.holds_when and self.wrong_when):
            raise InputError("holds_when", self.holds_when, "conditions exactly for 'holds only when'")


class NotChecked(Exception):
    """Raised by a figure function when the data it needs is unknown (e.g. an unpriced GPU)."""


@dataclass(frozen=True)
class Claim:
    """One claim of a source guide, with how to compute our figure (or the evidence) for it.

    Attributes:
        id: stable slug, unique.
        source: file name in the sources folder.
        section: heading the quote sits under.
        quote: the claim's words, verbatim (whitespace aside).
        subject: one of the keys of :data:`SUBJECTS`.
        conditions: what the claim implies (model, dtype, method...) and what we assumed.
        low, high: the claimed value or range in ``unit`` (equal for a single value);
            ``None`` for a qualitative claim or one we do not check.
        unit: the claim's unit ("GB" = 10^9 bytes, "GiB", "B/param", "%", "x", "USD/h"...).
        figure: returns our :class:`Figure`; ``None`` for a qualitative or unchecked claim.
        why: short, specific explanation in our words.
        bound: ``"about"``, ``"at most"`` or ``"at least"`` (see the module docstring).
        tolerance: relative widening of the claimed range; always :func:`tolerance_for` of the
            rule's first statement (set when the record is made).
        not_checked: the reason, when neither ``figure`` nor ``evidence`` is given.
        evidence: what decides a qualitative claim.
        rule: key shared by claims that state one rule (they get one verdict).
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
    tolerance: float = field(default=-1.0)
    not_checked: str = ""
    evidence: Evidence | None = None
    rule: str = ""

    def __post_init__(self) -> None:
        if self.bound not in BOUNDS:
            raise InputError("bound", self.bound, ", ".join(BOUNDS))
        if self.subject not in dict(SUBJECTS):
            raise InputError("subject", self.subject, ", ".join(dict(SUBJECTS)))
        ways = (self.figure is not None) + (self.evidence is not None) + bool(self.not_checked)
        if ways != 1:
            raise InputError("not_checked", self.not_checked,
                             "exactly one of a figure, evidence, or a reason for not checking")
        if self.figure is not None and (self.low is None or self.high is None or self.low > self.high):
            raise InputError("low/high", (self.low, self.high), "low <= high for a checked claim")
        if self.tolerance < 0:  # a restatement (dataclasses.replace) keeps the rule's tolerance
            object.__setattr__(self, "tolerance", tolerance_for(self.quote, low=self.low, high=self.high,
                                                                bound=self.bound))


@dataclass(frozen=True)
class Evaluated:
    """A claim with our figure (or evidence) and the verdict.

    ``holding`` and ``failing`` name the conditions (or cases) inside and outside the claim.
    """

    claim: Claim
    figure: Figure | None
    verdict: str
    holding: tuple[str, ...] = ()
    reason: str = ""
    failing: tuple[str, ...] = ()

    @property
    def verdict_text(self) -> str:
        """The verdict as shown: "holds only when A; B (wrong when C)" names both sides."""
        if self.verdict == VERDICT_ONLY_WHEN:
            wrong = f" (wrong when {'; '.join(self.failing)})" if self.failing else ""
            return f"{VERDICT_ONLY_WHEN} {'; '.join(self.holding)}{wrong}"
        return self.verdict


def case_holds(claim: Claim, value: float) -> bool:
    """True when ``value`` satisfies the claim's bound, within its tolerance.

    >>> c = Claim(id="c", source="s", section="s", quote="q", subject="cost", conditions="", low=1, high=2,
    ...           unit="USD/h", figure=lambda: Figure((), "USD/h", "f", "p"), why="", bound="at most")
    >>> case_holds(c, 2.0), case_holds(c, 2.01)
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


def _names(results: list[tuple[Case, bool]]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(holding, failing) names: a condition whose cases all agree is named once, else its cases."""
    groups: dict[str, list[tuple[Case, bool]]] = {}
    for case, held in results:
        groups.setdefault(case.condition or case.label, []).append((case, held))
    holding: list[str] = []
    failing: list[str] = []
    for name, members in groups.items():
        if all(held for _case, held in members):
            holding.append(name)
        elif not any(held for _case, held in members):
            failing.append(name)
        else:
            holding += [case.label for case, held in members if held]
            failing += [case.label for case, held in members if not held]
    return tuple(holding), tuple(failing)


def evaluate(claim: Claim) -> Evaluated:
    """Compute our figure for a claim and its verdict (see the module docstring)."""
    if claim.evidence is not None:
        found = claim.evidence
        holding: tuple[str, ...] = (found.holds_when,) if found.holds_when else ()
        failing: tuple[str, ...] = (found.wrong_when,) if found.wrong_when else ()
        return Evaluated(claim, None, found.verdict, holding, reason=found.finding, failing=failing)
    if claim.figure is None:
        return Evaluated(claim, None, VERDICT_NOT_CHECKED, reason=claim.not_checked)
    try:
        figure = claim.figure()
    except NotChecked as unknown:
        return Evaluated(claim, None, VERDICT_NOT_CHECKED, reason=str(unknown))
    readings = tuple(case for case in figure.cases if case.reading)
    if not readings:
        raise InputError("cases", claim.id, "at least one case that reads the claim")
    results = [(case, case_holds(claim, case.value)) for case in readings]
    holding, failing = _names(results)
    if all(held for _case, held in results):
        return Evaluated(claim, figure, VERDICT_HOLDS, holding)
    if any(held for _case, held in results):
        return Evaluated(claim, figure, VERDICT_ONLY_WHEN, holding, failing=failing)
    return Evaluated(claim, figure, VERDICT_WRONG, failing=failing)
