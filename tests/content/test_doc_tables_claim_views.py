"""Topic-page claim tables are views of the rules-of-thumb audit, and the audit's CPU-core records.

Every verdict on the site comes from :func:`calculators.claims.evaluated`: the tables below
show the audit's records, in the order their page lists them, with the audit's verdict text
and no reading of their own. The CPU-core records' figures are checked against the loader
formula worked out by hand.
"""

from __future__ import annotations

import math

import pytest
from support import site_tables as shared_site_tables

from calculators.claims import Evaluated, evaluated
from calculators.claims.record import VERDICT_HOLDS, VERDICT_ONLY_WHEN
from calculators.doc_tables import cost, fine_tuning, hardware_fit, inference_quantization, memory_precision, system
from calculators.doc_tables.claims import COLUMNS
from calculators.table_registry import all_tables
from calculators.tables import Table, TableFunction

#: (table id, table function, the claim ids its page lists).
VIEWS: tuple[tuple[str, TableFunction, tuple[str, ...]], ...] = (
    ("hardware-claims", hardware_fit.claims, hardware_fit.HARDWARE_CLAIM_IDS),
    ("memory-source-claims", memory_precision.source_claims_table, memory_precision.MEMORY_CLAIM_IDS),
    ("fine-tuning-vendor-claims", fine_tuning.vendor_claims, fine_tuning.VENDOR_CLAIM_IDS),
    ("system-claims", system.claims, system.SYSTEM_CLAIM_IDS),
    ("cost-claims", cost.claims, cost.COST_CLAIM_IDS),
    ("inference-quant-claims", inference_quantization.quant_claims_table, inference_quantization.QUANT_CLAIM_IDS),
)


def _by_id() -> dict[str, tuple[str, str]]:
    return {item.claim.id: (item.verdict_text, item.claim.quote) for item in evaluated()}


@pytest.mark.parametrize(("table_id", "function", "ids"), VIEWS, ids=[view[0] for view in VIEWS])
def test_claim_table_carries_the_audit_verdicts(table_id: str, function: TableFunction, ids: tuple[str, ...]) -> None:
    """One verdict per claim on the site: each row is an audit record with the audit's verdict text."""
    table: Table = function()
    audit = _by_id()
    assert table.id == table_id
    assert table.columns == COLUMNS
    assert [row[0] for row in table.rows] == list(ids)
    for row in table.rows:
        verdict, quote = audit[row[0]]
        assert row[COLUMNS.index("verdict")] == verdict, row[0]
        assert row[COLUMNS.index("claim (quoted)")] == f"\"{quote}\"", row[0]


def test_no_other_table_gives_verdicts_of_its_own() -> None:
    """A table with a verdict column is a view of the audit (its columns), never its own reading."""
    computed = shared_site_tables()  # each table computed once a session (support.site_tables)
    with_verdicts = sorted(table_id for table_id in all_tables()
                           if any("verdict" in column.lower() for column in computed[table_id]().columns))
    views = {view[0] for view in VIEWS}
    own = [table_id for table_id in with_verdicts if table_id not in views and not table_id.startswith("claims-")]
    assert own == [], f"tables with verdicts not taken from calculators.claims: {own}"


def test_fine_tuning_vendor_claims_are_the_range_rows_of_the_vendor_table() -> None:
    # VRLA Tech's table has 13 rows (4 at 7B, 3 each at 13B, 30-34B and 70B); each is a range
    # record and a '-fits' record in calculators.claims.vendor_tables. The page shows the ranges.
    from calculators.claims.vendor_tables import VRLA_ROWS

    assert len(fine_tuning.VENDOR_CLAIM_IDS) == len(VRLA_ROWS) == 13
    assert not any(claim_id.endswith("-fits") for claim_id in fine_tuning.VENDOR_CLAIM_IDS)


# --------------------------------------------------------------------------- CPU-core records
def _item(claim_id: str) -> Evaluated:
    return next(item for item in evaluated() if item.claim.id == claim_id)


# Pillow decodes ImageNet validation JPEGs at 577 images/s on one thread of a Xeon Platinum 8581C
# (Iglovikov and Kosarevsky, arXiv:2605.08731, imread-benchmark table): 1000 / 577 = 1.733 ms,
# which calculators.system rounds to 1.73 ms per image.
DECODE_MS = 1.73
# cores = images/s x CPU ms per image / 1000, rounded up to whole DataLoader workers
# (DataLoaderNeed.cpu_cores in calculators/system.py).
# One GPU at 1,000 JPEG/s, decode only (docs/system/data-and-storage.md, table system-loader-examples):
# 1000 x 1.73 / 1000 = 1.73 -> 2 cores.
ONE_GPU_CORES = 2
# 8 GPUs at 3,000 JPEG/s with 3 ms of assumed augmentation (the page's worked example, footnote "aug"):
# 3000 x (1.73 + 3) / 1000 = 14.19 -> 15 cores.
NODE_CORES = 15


def test_loader_core_counts_by_hand() -> None:
    assert math.ceil(1000 * DECODE_MS / 1000) == ONE_GPU_CORES
    assert math.ceil(3000 * (DECODE_MS + 3) / 1000) == NODE_CORES
    for claim_id in ("pytorch-cpu-4-cores", "vrla-ws-cpu-16-cores"):
        item = _item(claim_id)
        assert item.figure is not None and item.figure.unit == "CPU cores"
        assert [case.value for case in item.figure.cases] == [ONE_GPU_CORES, NODE_CORES]
        assert item.claim.bound == "at most" and item.claim.subject == "system"


def test_four_cores_hold_for_one_gpu_only() -> None:
    # PyTorch guide: "at least 4 cores and 8 threads": 2 <= 4 for one GPU, 15 > 4 for the 8-GPU node.
    item = _item("pytorch-cpu-4-cores")
    assert (item.claim.low, item.claim.high) == (4, 4)
    assert item.verdict == VERDICT_ONLY_WHEN
    assert item.figure is not None and item.holding == (item.figure.cases[0].label,)


def test_sixteen_cores_hold_for_both_pipelines() -> None:
    # VRLA workstation guide: "16+ CPU cores": 2 and 15 are both <= 16.
    item = _item("vrla-ws-cpu-16-cores")
    assert (item.claim.low, item.claim.high) == (16, 16)
    assert item.verdict == VERDICT_HOLDS


# --------------------------------------------------------------------------- the cost exercise
def test_cost_exercise_hours_by_hand() -> None:
    # Practitioners' guide exercise: 2-3 jobs a week of 4-6 hours, 52 / 12 = 4.33 weeks a month:
    # 2 x 4 x 4.33 = 34.7 -> 35 and 3 x 6 x 4.33 = 78.0 -> 78 GPU-hours; a month is 365 / 12 x 24 = 730 h,
    # so one GPU is busy 34.7 / 730 = 5 % to 78 / 730 = 11 % of it.
    table = cost.exercise()
    rows = {row[0]: row for row in table.rows}
    assert rows["training time per month"][1:3] == ("35", "78")
    assert rows["utilisation of one local GPU doing the same work"][1:3] == ("5%", "11%")
    assert "verdict" not in table.columns
