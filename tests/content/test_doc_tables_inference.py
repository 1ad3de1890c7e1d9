"""Cells of the Inference section's tables, checked against derivations written out by hand.

Each expected value is arithmetic on config.json values (cited in the catalog), so a
change in the engine or in the table code that moves a cell fails here with the reason.
"""

from __future__ import annotations

from calculators.doc_tables import inference, inference_moe, inference_quantization
from calculators.tables import Table

GIB = 2**30


def _row(table: Table, first: str, *, second: str | None = None) -> tuple[str, ...]:
    for row in table.rows:
        if row[0] == first and (second is None or row[1] == second):
            return row
    raise AssertionError(f"no row {first!r} in {table.id}")


def test_kv_per_token_mha_vs_gqa() -> None:
    table = inference.kv_per_token_table()
    # Llama 2 7B: 2 (K, V) x 32 layers x 32 KV heads x 128 head_dim x 2 bytes = 524,288 B = 512 KiB.
    assert _row(table, "Llama 2 7B")[4] == "512.0"
    # Llama 3.1 8B: 2 x 32 x 8 x 128 x 2 = 131,072 B = 128 KiB; at 8192 tokens = 1 GiB exactly.
    row = _row(table, "Llama 3.1 8B")
    assert (row[1], row[4], row[5]) == ("GQA", "128.0", "1.00")


def test_gemma2_explicit_head_dim_and_windowed_layers() -> None:
    row = _row(inference.kv_per_token_table(), "Gemma 2 9B")
    # head_dim 256 from the config, not hidden 3584 / 16 heads = 224.
    assert row[3] == "8 x 256"
    # 42 layers x 2 x 8 x 256 x 2 B = 344,064 B = 336 KiB per token.
    assert row[4] == "336.0"
    # At 32K: 21 global layers x 32768 + 21 windowed layers x 4096 tokens, x 8192 B per layer-token.
    expected = (21 * 32768 + 21 * 4096) * 8192 / GIB
    assert row[6] == f"{expected:.2f}"


def test_mla_latent_vs_decompressed() -> None:
    table = inference_moe.moe_kv_table()
    latent = _row(table, "DeepSeek-V3", second="MLA latent (vLLM; transformers 5.23)")
    # 61 layers x (512 latent + 64 rope) x 2 B = 70,272 B = 68.625 KiB.
    assert latent[2] == "68.6"
    decompressed = _row(table, "DeepSeek-V3", second="MLA decompressed per head (transformers 4.x)")
    # 61 layers x 128 heads x (128 + 64 + 128) x 2 B = 4,997,120 B = 4880 KiB.
    assert decompressed[2] == "4,880.0"


def test_mixtral_split_sums_to_the_exact_count() -> None:
    table = inference_moe.mixtral_split_table()
    # Mixtral's experts: 32 layers x 8 experts x 3 x 4096 x 14336 = 45,097,156,608.
    assert _row(table, "experts: 8 per layer, 2 per token")[1] == "45,097.2"
    # The naive figure: 8 x Mistral 7B v0.1's 7,241,732,096 parameters.
    assert _row(table, "naive: 8 x and 2 x Mistral 7B v0.1")[1] == f"{8 * 7_241_732_096 / 1e6:,.1f}"
    parts = [float(r[1].replace(",", "")) for r in table.rows[:5]]
    total = float(_row(table, "Mixtral 8x7B, exact")[1].replace(",", ""))
    assert abs(sum(parts) - total) < 0.2


def test_int4_weights_keep_embeddings_in_bf16() -> None:
    row = _row(inference_quantization.quant_weights_table(), "Llama 3.1 8B")
    # Embedding and head: 2 x 128,256 x 4096 params; norms: 32 x 2 x 4096 + 4096; all at 2 bytes.
    kept = (2 * 128256 * 4096 + 32 * 2 * 4096 + 4096) * 2
    assert row[-1] == f"{kept / GIB:.2f}"
    # bf16 column: 8,030,261,248 x 2 bytes.
    assert row[2] == f"{8_030_261_248 * 2 / GIB:.1f}"


def test_int4_bits_per_weight() -> None:
    row = _row(inference_quantization.quant_formats_table(), "int4")
    # 4 bits + (16-bit scale + 4-bit zero point) / 128 weights = 4.15625 bits.
    assert row[3] == "4.156"


def test_every_table_is_deterministic_and_well_formed() -> None:
    tables = {**inference.TABLES, **inference_quantization.TABLES, **inference_moe.TABLES}
    for table_id, function in tables.items():
        first, second = function(), function()
        assert first == second, table_id
        assert first.id == table_id
        assert all(len(row) == len(first.columns) for row in first.rows), table_id
        assert not table_id.startswith("inference-") or first.caption
