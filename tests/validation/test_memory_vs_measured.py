"""The memory calculators against measured PyTorch peaks (tests/data/measurements).

Each record was produced by ``scripts/measure_memory.py``: a real Hugging Face
``transformers`` training step or prefill+decode, with every live tensor storage tracked
(see the record's ``provenance``). The targets are the ones the guide publishes on its
"How accurate are these numbers?" page: median absolute error <= 2 %, 95th percentile
<= 5 %, worst <= 10 %, over the training, inference and encoder (embedding) cases.
"""

from __future__ import annotations

import pytest

from calculators.accuracy import CaseScore, score, summary
from calculators.measurements import load_measurements

RECORDS = load_measurements()
SCORES = [score(record) for record in RECORDS]

MEDIAN_LIMIT = 0.02
P95_LIMIT = 0.05
WORST_LIMIT = 0.10


def _worst(scores: list[CaseScore], n: int = 5) -> str:
    ranked = sorted(scores, key=lambda s: -abs(s.relative_error))[:n]
    return "; ".join(f"{s.case_id}: {s.relative_error:+.1%} (measured {s.measured_bytes / 2**30:.3f} GiB, "
                     f"estimated {s.estimated_bytes / 2**30:.3f} GiB)" for s in ranked)


def test_measurements_are_present_and_span_the_grid() -> None:
    kinds = {record["kind"] for record in RECORDS}
    methods = {record["settings"].get("method") for record in RECORDS if record["kind"] == "train"}
    model_types = {record["model"]["config"]["model_type"] for record in RECORDS}
    assert kinds == {"train", "infer", "embed"}
    assert {"full", "lora"} <= methods
    assert len(model_types) >= 4, model_types


@pytest.mark.parametrize("kind", ["train", "infer", "embed"])
def test_error_distribution_within_published_targets(kind: str) -> None:
    scores = [s for s in SCORES if s.kind == kind]
    stats = summary(scores)
    detail = f"{kind}: n={stats.count} median {stats.median:.2%} p95 {stats.p95:.2%} worst {stats.worst:.2%}; " \
             f"worst cases: {_worst(scores)}"
    assert stats.median <= MEDIAN_LIMIT, detail
    assert stats.p95 <= P95_LIMIT, detail
    assert stats.worst <= WORST_LIMIT, detail


def test_peak_phase_matches_measurement_where_the_margin_is_clear() -> None:
    """The phase of the peak is part of the answer ("your peak is the optimizer step")."""
    wrong = [s for s in SCORES if s.kind == "train" and s.measured_phase and s.estimated_phase != s.measured_phase]
    # A phase may differ when two phases are within 1 % of each other; require that
    # at most a tenth of the cases disagree, and name them.
    assert len(wrong) <= max(1, len(SCORES) // 10), [f"{s.case_id}: {s.measured_phase} vs {s.estimated_phase}"
                                                      for s in wrong]
