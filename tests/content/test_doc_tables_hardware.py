"""Cells of the hardware page's tables (docs/hardware/index.md) against independent derivations.

Each expected value is worked out in the comment beside it from datasheet figures, so a
change in the table code that silently shifts a unit or a column fails here.
"""

from __future__ import annotations

import pytest

from calculators.catalog.gpus import all_gpus, get_gpu
from calculators.catalog.models import get_model
from calculators.catalog.usable_memory import usable_memory_bytes
from calculators.claims import evaluated
from calculators.doc_tables import hardware, hardware_fit
from calculators.doc_tables.claims import selected_claims
from calculators.dtype_support import on_gpu
from calculators.fit import fit_inference, fit_training
from calculators.tables import Table


def _row(table: Table, first_cell: str) -> dict[str, str]:
    for row in table.rows:
        if row[0] == first_cell:
            return dict(zip(table.columns, row, strict=True))
    raise AssertionError(f"no row {first_cell!r} in {table.id}")


def test_every_table_is_deterministic_and_rectangular() -> None:
    for table_id, function in {**hardware.TABLES, **hardware_fit.TABLES}.items():
        first, second = function(), function()
        assert first == second, table_id
        assert first.id == table_id
        assert all(len(row) == len(first.columns) for row in first.rows), table_id


def test_catalog_row_h100_sxm() -> None:
    row = _row(hardware.catalog(), "H100 SXM 80GB")
    # Hopper whitepaper Table 3: 989.4 dense BF16 TFLOPS, 1,978.9 dense FP8; datasheet 3.35 TB/s = 3,350 GB/s.
    assert row["BF16 dense TFLOPS"] == "989.4"
    assert row["FP8 dense TFLOPS"] == "1,978.9"
    assert row["bandwidth GB/s"] == "3,350"
    # 80 GiB = 80 x 2**30 bytes; NVLink 4 is 900 GB/s bidirectional.
    assert row["memory GiB"] == "80"
    assert row["GPU-to-GPU link"].endswith("(900 GB/s)")
    # NVIDIA published no MSRP for the H100: unknown, never a guess.
    assert row["launch price USD"] == "unknown"


def test_catalog_has_every_gpu_once() -> None:
    names = [row[0] for row in hardware.catalog().rows]
    assert sorted(names) == sorted(gpu.name for gpu in all_gpus())


def test_ridge_points_are_flops_over_bytes() -> None:
    table = hardware.ridge()
    # RTX 3090: 71.2e12 FLOP/s / 936e9 B/s = 76.07 FLOP/byte.
    assert _row(table, "GeForce RTX 3090")["BF16 ridge FLOP/byte"] == "76"
    # H100 SXM: 989.4e12 / 3.35e12 = 295.3; FP8 1978.9e12 / 3.35e12 = 590.7.
    h100 = _row(table, "H100 SXM 80GB")
    assert (h100["BF16 ridge FLOP/byte"], h100["FP8 ridge FLOP/byte"]) == ("295", "591")
    # A100 tensor vs FP32: 312 / 19.5 = 16.0.
    assert _row(table, "A100 SXM 80GB")["BF16 ÷ FP32 rate"] == "16.0"
    # Apple publishes no TFLOPS for the M4 Max: the rate is derived, 40 cores x 256 FLOP x 1.678 GHz = 17.18e12
    # (calculators.catalog.apple_chips; hmc-tech's M4 Max clock), over 546e9 B/s = 31.5 FLOP/byte.
    assert _row(table, "Apple M4 Max (16-core CPU, 40-core GPU)")["BF16 ridge FLOP/byte"] == "31"


def test_sparse_table_marks_halved_headlines_as_derived() -> None:
    table = hardware.sparse_notes()
    # L4 datasheet prints 242 TFLOPS BF16 with sparsity; dense is 121, derived by halving.
    l4 = _row(table, "NVIDIA L4")
    assert (l4["BF16 dense TFLOPS"], l4["BF16 kind"]) == ("121.0", "derived")
    # The Hopper whitepaper prints the dense figure itself.
    assert _row(table, "H100 SXM 80GB")["BF16 kind"] == "spec"


def test_fit_matrix_decides_each_column_on_its_smallest_usable_memory() -> None:
    table = hardware_fit.fit_matrix()
    caps = hardware_fit.capacities()
    # One column per marketed memory size, decided on the GPU of that size a process gets least on.
    assert len({gpu.memory_bytes for gpu in all_gpus()}) == len(caps)
    for cap in caps:
        same = [gpu for gpu in all_gpus() if gpu.memory_bytes == cap.memory_bytes]
        assert usable_memory_bytes(cap) == min(usable_memory_bytes(gpu) for gpu in same)
    spec = get_model("llama-3-70b")
    for gpu in all_gpus():
        column = next(c for c in caps if c.memory_bytes == gpu.memory_bytes)
        # Each GPU in the 16-bit format it runs (fp16 where bf16 is not native: the same bytes).
        if fit_inference(spec, column, **on_gpu(column, hardware_fit.INFERENCE_SETTINGS)).fits:
            assert fit_inference(spec, gpu, **on_gpu(gpu, hardware_fit.INFERENCE_SETTINGS)).fits
    row = _row(table, "Llama 3 70B")
    # 70.55e9 parameters x 2 bytes = 141.1e9 bytes = 131.4 GiB of bf16 weights alone: more than 80 GiB.
    assert row["80 GiB"] == "QLoRA"
    # QLoRA keeps 4-bit weights (about 0.5 byte per parameter, ~33 GiB), so an 80 GiB card holds it
    # (above). The 48 GiB column is decided on the L40S, which gives a process 44.52 GiB with ECC on
    # (deviceQuery, 47,803,596,800 B): a QLoRA total above that cannot be shown as fitting there.
    if float(row["QLoRA GiB"]) > 47_803_596_800 / 2**30:
        assert "QLoRA" not in row["48 GiB"]
    estimate = fit_training(spec, caps[0], **on_gpu(caps[0], hardware_fit.QLORA_SETTINGS)).estimate
    assert row["QLoRA GiB"] == f"{estimate.total_bytes / 2**30:,.1f}"


def test_hardware_claims_carry_the_audit_verdicts() -> None:
    """One verdict per claim on the site: the hardware page's rows are the audit's records, not readings of their own."""
    audit = {item.claim.id: item.verdict_text for item in evaluated()}
    table = hardware_fit.claims()
    assert [row[0] for row in table.rows] == list(hardware_fit.HARDWARE_CLAIM_IDS)
    for row in table.rows:
        assert row[table.columns.index("verdict")] == audit[row[0]]


def test_rtx_4090_against_3090_catalog_ratios() -> None:
    # Datasheets: dense BF16 165.2 vs 71.2 TFLOPS (2.32x), bandwidth 1008 vs 936 GB/s (1.08x).
    r3090, r4090 = get_gpu("rtx-3090"), get_gpu("rtx-4090")
    assert r4090.memory_bandwidth_bytes_per_s / r3090.memory_bandwidth_bytes_per_s < 1.1
    assert 1.8 < (r4090.bf16_dense_flop_per_s or 0) / (r3090.bf16_dense_flop_per_s or 1) < 2.5


def test_hardware_claims_refuse_an_unknown_claim_id() -> None:
    with pytest.raises(KeyError, match="no-such-claim"):
        selected_claims(("no-such-claim",), page="hardware/index.md", caption="")


def test_sources_table_lists_each_record_url() -> None:
    table = hardware.sources()
    for gpu in all_gpus():
        assert _row(table, gpu.name)["URL"] == f"<{gpu.source.url}>"
