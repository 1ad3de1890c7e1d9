"""Our error next to the peer estimators' and the rules of thumb's, on the same measured cases.

The peers (Hugging Face accelerate's ``estimate-memory``, DeepSpeed's ZeRO model-state
estimators, llm-analysis, hf-mem) need torch, transformers or network access, so
``scripts/score_estimators.py --record-peers`` runs them once and stores their answers
in ``tests/data/peer_estimates.json``; this module only reads those numbers, so the
"How accurate?" page can be rebuilt with nothing but the standard library.

An estimator "covers" a case when it gives a number for it; errors are summarised over
the covered cases only, with the same math as :func:`calculators.accuracy.summary`
(signed error ``(estimate - measured) / measured``; median, 95th percentile and worst of
its absolute value; mean of the signed value).

>>> cfg = {"model_type": "llama", "hidden_size": 64, "num_hidden_layers": 2,
...     "num_attention_heads": 4, "intermediate_size": 128, "vocab_size": 100}
>>> record = {"id": "c1", "kind": "infer", "model": {"name": "tiny", "config": cfg},
...     "settings": {"weights": "bf16", "kv_cache": "bf16", "batch": 1, "context": 16},
...     "measured": {"peak_allocated_bytes": 200000, "peak_phase": "prefill"}}
>>> rows = peer_error_rows([record], {"estimates": {"c1": {"hf-mem": 250000}}})
>>> row = next(r for r in rows if r["group"] == "inference" and r["estimator"] == "hf-mem")
>>> row["cases"], row["median"], row["mean_signed"]
(1, 0.25, 0.25)
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from calculators.accuracy import CaseScore, score, summary
from calculators.errors import CalculatorError
from calculators.rules_of_thumb import RULE_NAMES, case_group, rule_estimates
from calculators.tables import Table

#: Peer estimators in display order (keys of ``peer_estimates.json``'s per-case dicts).
PEER_NAMES: tuple[str, ...] = ("accelerate", "deepspeed-zero", "deepspeed-zero3", "llm-analysis", "hf-mem")

#: Name of our calculator's row.
OURS = "this guide (calculators)"

#: Case groups in display order, with their headings.
GROUPS: tuple[tuple[str, str], ...] = (
    ("full", "Full fine-tuning"),
    ("lora", "LoRA / QLoRA"),
    ("inference", "Inference"),
)


def _estimates_by_case(peer_estimates: Mapping[str, Any]) -> Mapping[str, Mapping[str, Any]]:
    """Accept either the whole ``peer_estimates.json`` document or its ``estimates`` part."""
    inner = peer_estimates.get("estimates")
    if isinstance(inner, Mapping):
        return inner
    return peer_estimates


def _our_estimate(record: Mapping[str, Any]) -> int | None:
    try:
        return score(record).estimated_bytes
    except CalculatorError:
        return None


def _optional(value: float) -> float | None:
    return None if math.isnan(value) else value


def peer_error_rows(records: Iterable[Mapping[str, Any]],
                    peer_estimates: Mapping[str, Any]) -> list[dict[str, Any]]:
    """One row per (case group, estimator): cases covered and the error distribution.

    Estimators are our calculator, each rule of thumb of
    :data:`calculators.rules_of_thumb.RULE_NAMES` that applies to the group, and each
    peer of :data:`PEER_NAMES` (always listed, with 0 cases where it covers none).

    Args:
        records: measurement records (``id``, ``kind``, ``model``, ``settings``,
            ``measured.peak_allocated_bytes``).
        peer_estimates: the ``peer_estimates.json`` document (or its ``estimates``
            mapping): ``{case_id: {peer: bytes or None}}``.

    Returns:
        Dicts with ``group`` (``full``/``lora``/``inference``), ``group_title``,
        ``estimator``, ``cases`` (covered), ``group_cases`` (all in the group) and
        ``median``, ``p95``, ``worst``, ``mean_signed`` as fractions (``None`` when no
        case is covered). Rows are ordered by group, then ours, rules, peers; a group
        with no records has no rows.
    """
    by_case = _estimates_by_case(peer_estimates)
    ordered = sorted(records, key=lambda r: str(r["id"]))
    rows: list[dict[str, Any]] = []
    for group, title in GROUPS:
        members = [r for r in ordered if case_group(r) == group]
        if not members:
            continue
        columns: dict[str, list[CaseScore]] = {name: [] for name in (OURS, *RULE_NAMES, *PEER_NAMES)}
        for record in members:
            measured = int(record["measured"]["peak_allocated_bytes"])
            case_id = str(record["id"])
            estimates: dict[str, int | None] = {OURS: _our_estimate(record)}
            estimates.update(rule_estimates(record))
            peers = by_case.get(case_id, {})
            for peer in PEER_NAMES:
                value = peers.get(peer)
                estimates[peer] = None if value is None else int(value)
            for name, value in estimates.items():
                if value is not None:
                    columns[name].append(CaseScore(case_id, str(record["kind"]), "", "", measured, value, "", ""))
        for name, scores in columns.items():
            if not scores and name in RULE_NAMES:
                continue
            stats = summary(scores)
            rows.append({
                "group": group,
                "group_title": title,
                "estimator": name,
                "cases": stats.count,
                "group_cases": len(members),
                "median": _optional(stats.median),
                "p95": _optional(stats.p95),
                "worst": _optional(stats.worst),
                "mean_signed": _optional(stats.mean_signed),
            })
    return rows


def _percent(value: float | None, *, signed: bool = False) -> str:
    if value is None:
        return "-"
    if signed and round(value * 100, 1) == 0:
        return "0.0 %"  # never "-0.0 %"
    return f"{value * 100:+.1f} %" if signed else f"{value * 100:.1f} %"


_HEADERS = ("estimator", "cases", "median |error|", "p95 |error|", "worst |error|", "mean signed error")


def _cells(row: Mapping[str, Any]) -> list[str]:
    return [
        str(row["estimator"]),
        f"{row['cases']}/{row['group_cases']}",
        _percent(row["median"]),
        _percent(row["p95"]),
        _percent(row["worst"]),
        _percent(row["mean_signed"], signed=True),
    ]


def render_peer_table(rows: Sequence[Mapping[str, Any]], *, markdown: bool = False) -> str:
    """Render :func:`peer_error_rows` as one table per case group (plain text or Markdown).

    Numbers are right-aligned; ``cases`` reads "covered/in group"; "-" marks an
    estimator that covers no case of the group.

    >>> rows = [{"group": "full", "group_title": "Full fine-tuning", "estimator": "x",
    ...     "cases": 1, "group_cases": 2, "median": 0.1, "p95": 0.1, "worst": 0.1,
    ...     "mean_signed": -0.1}]
    >>> print(render_peer_table(rows, markdown=True))
    ### Full fine-tuning (2 cases)
    <BLANKLINE>
    | estimator | cases | median \\|error\\| | p95 \\|error\\| | worst \\|error\\| | mean signed error |
    |:--|--:|--:|--:|--:|--:|
    | x | 1/2 | 10.0 % | 10.0 % | 10.0 % | -10.0 % |
    """
    blocks: list[str] = []
    for group, title in GROUPS:
        members = [row for row in rows if row["group"] == group]
        if not members:
            continue
        count = int(members[0]["group_cases"])
        heading = f"{title} ({count} case{'' if count == 1 else 's'})"
        body = [_cells(row) for row in members]
        if markdown:
            head = [h.replace("|", "\\|") for h in _HEADERS]
            lines = [f"### {heading}", "", "| " + " | ".join(head) + " |",
                     "|:--|" + "--:|" * (len(_HEADERS) - 1)]
            lines += ["| " + " | ".join(cells) + " |" for cells in body]
        else:
            widths = [max(len(h), *(len(c[i]) for c in body)) for i, h in enumerate(_HEADERS)]

            def fmt(cells: Sequence[str]) -> str:
                first = cells[0].ljust(widths[0])
                return "  ".join([first, *(c.rjust(w) for c, w in zip(cells[1:], widths[1:]))]).rstrip()

            lines = [heading, fmt(_HEADERS), "  ".join("-" * w for w in widths)]
            lines += [fmt(cells) for cells in body]
        blocks.append("\n".join(lines))
    return "\n\n".join(blocks)


def peers_table(records: Iterable[Mapping[str, Any]], peer_estimates: Mapping[str, Any]) -> Table:
    """Table ``accuracy-peers``: our error next to the rules of thumb and peer estimators.

    One row per (case group, estimator); estimators that cover no case of a group are
    left out of that group.
    """
    rows = [row for row in peer_error_rows(records, peer_estimates) if row["cases"]]
    cells = tuple((str(row["group_title"]), *_cells(row)) for row in rows)
    provenance = peer_estimates.get("provenance", {})
    packages = provenance.get("packages", {}) if isinstance(provenance, Mapping) else {}
    versions = ", ".join(f"{name} {packages[name]}" for name in sorted(packages)
                         if name in ("accelerate", "deepspeed", "llm-analysis", "llm_analysis", "hf-mem"))
    return Table(
        id="accuracy-peers",
        caption=("Error of each estimator against the same measured peaks (peak allocated bytes); "
                 "'cases' counts the measured cases an estimator gives a number for."),
        columns=("jobs", *_HEADERS),
        align=("l", "l", "r", "r", "r", "r", "r"),
        rows=cells,
        assumptions=(f"peer answers recorded by scripts/score_estimators.py --record-peers ({versions})"
                     if versions else "peer answers recorded by scripts/score_estimators.py --record-peers",),
    )
