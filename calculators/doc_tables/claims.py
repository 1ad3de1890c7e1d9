"""Tables of the "Rules of thumb, audited" page (docs/validation/claims.md).

Every row comes from :func:`calculators.claims.evaluated`: the quoted claim, the
conditions it implies, our figure computed by the calculators for those conditions, and
the verdict computed from the two (see :mod:`calculators.claims.record`).
"""

from __future__ import annotations

import functools
import posixpath
from collections import Counter
from collections.abc import Iterable, Sequence
from typing import Any

from calculators.catalog.models import READ_ON
from calculators.catalog.prices import EDITION
from calculators.claims import OUT_OF_SCOPE, SUBJECTS, VERDICTS, Evaluated, evaluated
from calculators.claims.figures import JOB_TEXT, SOURCES
from calculators.claims.record import APPROX_TOLERANCE, TOLERANCE
from calculators.columns import Column
from calculators.tables import Table, TableFunction, computed_by

#: How a page's claims table names the audit behind its verdicts (its captions say "as AUDIT records and judges them").
AUDIT = f"the rules-of-thumb audit ({computed_by(evaluated, dotted=True, code=False)}, page 'Rules of thumb, audited')"

#: Where the page lives (links in cells are relative to it).
PAGE = "validation/claims.md"

_ASSUMPTIONS = (
    f"jobs the claims leave open: {JOB_TEXT}",
    "GB = 10^9 bytes as the guides multiply it; a GPU's 'GB' is GiB (2^30)",
    f"model configs as read on {READ_ON}; price edition {EDITION}",
)


def _number(value: float) -> str:
    """Fixed rounding by magnitude: integers bare, then 0, 1, 2 decimals, 3 significant digits below 1."""
    if value == int(value) and abs(value) < 1e6:
        return str(int(value))
    if abs(value) >= 100:
        return f"{value:.0f}"
    if abs(value) >= 10:
        return f"{value:.1f}"
    if abs(value) >= 1:
        return f"{value:.2f}"
    return f"{value:.3g}"


def _claimed(item: Evaluated) -> str:
    claim = item.claim
    if claim.evidence is not None:
        return "no number (a statement)"
    if claim.low is None or claim.high is None:
        return "-"
    value = _number(claim.low) if claim.low == claim.high else f"{_number(claim.low)}-{_number(claim.high)}"
    bound = {"about": "", "at most": "at most ", "at least": "at least "}[claim.bound]
    tolerance = f" (±{claim.tolerance:.0%})" if claim.tolerance else ""
    return f"{bound}{value} {claim.unit}{tolerance}"


def _figure(item: Evaluated, page: str = PAGE) -> str:
    """Our figure's cases, linked to the page and function behind it (links relative to ``page``)."""
    figure = item.figure
    evidence = item.claim.evidence
    if evidence is not None:
        return f"{evidence.finding} [{evidence.source_title}]({evidence.url}), read {evidence.as_of}; evidence"
    if figure is None:
        return item.reason
    values = "; ".join(f"{_number(case.value)} {figure.unit} ({case.label})" for case in figure.cases)
    link = posixpath.relpath(figure.page, posixpath.dirname(page))
    function = figure.function.rsplit(".", 1)[-1]
    kind = "catalog spec" if figure.kind == "spec" else figure.kind
    return f"{values}. [`{function}`]({link}), {kind}"


def _source(item: Evaluated) -> str:
    return f"{SOURCES[item.claim.source][0]}, *{item.claim.section}*"


#: Columns of every claims table, on the audit page and on topic pages.
COLUMNS = ("id", "claim (quoted)", "source", "conditions (ours where the claim is silent)", "claimed",
           "our figure", "verdict", "why")


def _claims_table(items: Iterable[Evaluated], *, caption: str, page: str = PAGE, **fields: Any) -> Table:
    """One row per evaluated claim, in :data:`COLUMNS` order, with links relative to ``page``."""
    rows = ((item.claim.id, f"\"{item.claim.quote}\"", _source(item), item.claim.conditions, _claimed(item),
             _figure(item, page), item.verdict_text, item.claim.why or "-") for item in items)
    return Table.of(tuple(map(Column, COLUMNS)), rows, caption=caption, assumptions=_ASSUMPTIONS, **fields)


def selected_claims(claim_ids: Sequence[str], *, page: str, caption: str) -> Table:
    """Some claims of the audit, with the audit's verdicts, for a topic page (``page`` under docs/); the page's
    table function declares the id (:func:`calculators.tables.table`).

    Raises ``KeyError`` naming an id that is not a claim record.
    """
    by_id = {item.claim.id: item for item in evaluated()}
    missing = [claim_id for claim_id in claim_ids if claim_id not in by_id]
    if missing:
        raise KeyError(f"not claim records: {', '.join(missing)}")
    return _claims_table((by_id[claim_id] for claim_id in claim_ids), page=page, caption=caption)


def subject_table(subject: str) -> Table:
    """Every claim of one subject: quote, source, conditions, claimed value, our figure, verdict, why."""
    heading = dict(SUBJECTS)[subject]
    return _claims_table(
        (item for item in evaluated() if item.claim.subject == subject), id=f"claims-{subject}",
        caption=(f"{heading}: claims of the five source guides, quoted, with the conditions they imply, "
                 "our figure for those conditions (its function and page linked) and the computed verdict. "
                 "'holds only when' names the conditions inside the claim and, in brackets, those outside; "
                 "'(reference)' cases are shown for comparison and never decide a verdict."))


def summary() -> Table:
    """How many claims of each subject hold, hold only under narrower conditions, are wrong or unchecked."""
    rows = []
    total: Counter[str] = Counter()
    for subject, heading in SUBJECTS:
        counts = Counter(item.verdict for item in evaluated() if item.claim.subject == subject)
        total.update(counts)
        rows.append((heading, sum(counts.values()), *(counts[v] for v in VERDICTS)))
    rows.append(("all claims", sum(total.values()), *(total[v] for v in VERDICTS)))
    return Table.of(
        id="claims-summary",
        caption=("Verdicts on the claims of the five source guides, by subject, computed by "
                 f"{computed_by(evaluated, dotted=True, code=False)}. One tolerance rule: a single value the claim "
                 f"hedges ('about', 'approximately', 'roughly', '~') holds within ±{APPROX_TOLERANCE:.0%}; every "
                 f"other value or range, hedged ranges included, only within ±{TOLERANCE:.0%} for rounding; bounds "
                 "(a job against a card, a floor) have none. Cases marked '(reference)' are shown, never counted."),
        columns=(Column("subject"), *(Column(name, align="r") for name in ("claims", *VERDICTS))),
        rows=rows,
        assumptions=_ASSUMPTIONS,
    )


def out_of_scope() -> Table:
    """Source lines with a number and a unit that carry no claim we check, with the reason."""
    rows = tuple((SOURCES[source][0], f"\"{snippet}\"", reason) for source, snippet, reason in OUT_OF_SCOPE)
    return Table(
        id="claims-out-of-scope",
        caption=("Lines of the source guides that carry a number next to a unit but no claim this audit checks, "
                 "each with the reason (calculators.claims.scope.OUT_OF_SCOPE); tests/content/test_claims.py fails when a "
                 "line with a number and a unit is neither here nor quoted by a claim."),
        columns=("source", "line (quoted)", "why it is not checked"),
        align=("l", "l", "l"),
        rows=rows,
    )


TABLES: dict[str, TableFunction] = {
    "claims-summary": summary,
    **{f"claims-{subject}": functools.partial(subject_table, subject) for subject, _ in SUBJECTS},
    "claims-out-of-scope": out_of_scope,
}
