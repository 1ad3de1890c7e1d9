"""Cells of the fine-tuning and multi-GPU tables, checked against derivations written out by hand.

Each expected value is derived in a comment from byte sizes and published shapes, so a
change in the engine that moves one of these cells has to be explained here too.
"""

from __future__ import annotations

from calculators.doc_tables import fine_tuning, fine_tuning_lora, multi_gpu
from calculators.tables import Table

GIB = 2**30
LLAMA3_8B_PARAMS = 8_030_261_248  # Meta-Llama-3-8B safetensors total (model catalog)


def _row(table: Table, *prefix: str) -> tuple[str, ...]:
    matches = [row for row in table.rows if row[: len(prefix)] == prefix]
    assert len(matches) == 1, f"{prefix} matches {len(matches)} rows of {table.id}"
    return matches[0]


def test_full_fine_tuning_bytes_per_parameter() -> None:
    table = fine_tuning.by_size()
    # bf16-mixed AdamW (foreach) at the optimizer step: fp32 weights 4 + fp32 grads 4
    # + two fp32 moments 8 + the foreach sqrt temporary 4 = 20 bytes per parameter, plus the
    # 64 MiB of cuBLAS workspaces measured on an H100 (tests/data/measurements_cuda/h100-sxm).
    workspaces = 64 * 2**20
    mixed = _row(table, "7-8B", "Llama 3 8B", "full, bf16-mixed AdamW", "off")
    assert mixed[5] == f"{(20 * LLAMA3_8B_PARAMS + workspaces) / GIB:.2f}" == "149.64"
    # Pure bf16: 2 + 2 + 4 + 2 = 10 bytes per parameter.
    pure = _row(table, "7-8B", "Llama 3 8B", "full, pure bf16 AdamW", "on")
    assert pure[5] == f"{(10 * LLAMA3_8B_PARAMS + workspaces) / GIB:.2f}" == "74.85"
    assert mixed[7] == pure[7] == "optimizer"


def test_lora_rank16_all_linear_count() -> None:
    # Llama 3 8B layer: q 4096->4096, k and v 4096->1024 (8 KV heads x 128), o 4096->4096,
    # gate and up 4096->14336, down 14336->4096. Rank 16 x (in + out) each:
    # 16 x (2 x 8192 + 2 x 5120 + 3 x 18432) = 1,310,720 per layer; x 32 layers = 41,943,040.
    row = _row(fine_tuning_lora.lora_rank_targets(), "16", "all-linear")
    assert row[2] == f"{41_943_040 / 1e6:.1f}" == "41.9"


def test_nf4_bits_per_parameter() -> None:
    # 4 bits + an 8-bit absmax per 64 values + one fp32 per 256 blocks: 4 + 8/64 + 32/16384.
    row = _row(fine_tuning_lora.lora_key_numbers(), "NF4 with double quantisation")
    assert row[1] == f"{4 + 8 / 64 + 32 / 16384:.3f}" == "4.127"


def test_zero_stages_divide_the_model_states() -> None:
    table = multi_gpu.zero_peak()
    ddp = _row(table, "Llama 3 8B", "off", "0 (DDP)")
    stage1 = _row(table, "Llama 3 8B", "off", "1 (optimizer states)")
    stage3 = _row(table, "Llama 3 8B", "off", "3 (+ weights; FSDP full shard)")
    # Every GPU also holds the 64 MiB of cuBLAS workspaces measured on an H100
    # (tests/data/measurements_cuda/h100-sxm).
    ws = 64 * 2**20
    # DDP on 8 GPUs: the 20 B/param of one GPU plus a 4 B/param fp32 bucket copy of the gradients.
    assert ddp[6] == f"{(24 * LLAMA3_8B_PARAMS + ws) / GIB:.1f}"
    # ZeRO-1 on 8 GPUs: weights 4 + grads 4 whole, moments 8 and temporary 4 divided by 8.
    assert stage1[6] == f"{((8 + 12 / 8) * LLAMA3_8B_PARAMS + ws) / GIB:.1f}"
    # ZeRO-3 on 2 GPUs: every one of the 20 B/param halved (the optimizer step is still the peak).
    assert stage3[4] == f"{(10 * LLAMA3_8B_PARAMS + ws) / GIB:.1f}"
    # One GPU has nothing to shard: the same figure at every stage.
    assert ddp[3] == stage1[3] == stage3[3] == f"{(20 * LLAMA3_8B_PARAMS + ws) / GIB:.1f}"


def test_interconnect_is_bidirectional_halved() -> None:
    # H100 SXM: NVIDIA quotes 900 GB/s of NVLink 4 bandwidth, both directions summed.
    row = _row(multi_gpu.interconnect(), "H100 SXM 80GB")
    assert row[2:] == ("900.0", "450.00", "Gen5 x16")
