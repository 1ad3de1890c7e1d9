"""The rules of thumb (calculators.rules_of_thumb) and the peer error table (calculators.peers)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from calculators.peers import OURS, PEER_NAMES, peer_error_rows, render_peer_table
from calculators.rules_of_thumb import (
    RULE_16,
    RULE_18,
    RULE_INFER,
    RULE_LORA_10,
    RULE_LORA_20,
    RULE_NAMES,
    bytes_per_param_rule,
    case_group,
    inference_rule,
    lora_rule,
    rule_estimates,
)

PEER_FILE = Path(__file__).resolve().parents[1] / "data" / "peer_estimates.json"

# Meta-Llama-3-8B's config.json shapes; 8,030,261,248 parameters (see calculators/model.py).
LLAMA3_8B = {"model_type": "llama", "hidden_size": 4096, "num_hidden_layers": 32, "num_attention_heads": 32,
             "num_key_value_heads": 8, "intermediate_size": 14336, "vocab_size": 128256,
             "tie_word_embeddings": False}
LLAMA3_8B_PARAMS = 8_030_261_248

# A tiny Llama: embed 100x64 + head 100x64 = 12,800; per layer q,o 64x64 and k,v 64x64 (4 KV
# heads = all heads) = 16,384, MLP 3 x 64 x 128 = 24,576, two norms 128 -> 41,088; two layers
# 82,176; final norm 64.  Total 12,800 + 82,176 + 64 = 95,040.
TINY = {"model_type": "llama", "hidden_size": 64, "num_hidden_layers": 2, "num_attention_heads": 4,
        "intermediate_size": 128, "vocab_size": 100}
TINY_PARAMS = 95_040


def _train(case_id: str, measured: int, *, method: str = "full", optimizer: str = "adamw",
           config: dict[str, Any] = TINY, **extra: Any) -> dict[str, Any]:
    settings = {"method": method, "precision": "bf16-mixed", "optimizer": optimizer, "batch": 1, "seq": 16,
                "grad_checkpointing": False, "attention": "sdpa", **extra}
    return {"id": case_id, "kind": "train", "model": {"name": "tiny", "config": config}, "settings": settings,
            "measured": {"peak_allocated_bytes": measured, "peak_phase": "optimizer"}}


def _infer(case_id: str, measured: int, *, weights: str = "bf16", config: dict[str, Any] = TINY) -> dict[str, Any]:
    settings = {"weights": weights, "kv_cache": weights, "batch": 1, "context": 16, "new_tokens": 0}
    return {"id": case_id, "kind": "infer", "model": {"name": "tiny", "config": config}, "settings": settings,
            "measured": {"peak_allocated_bytes": measured, "peak_phase": "prefill"}}


# ----------------------------------------------------------------------------- the rules

@pytest.mark.parametrize(("parameters", "bytes_per_param", "expected"), [
    (7_000_000_000, 16, 112_000_000_000),  # 7B x 16 B = 112 GB (the mixed-precision Adam count)
    (7_000_000_000, 18, 126_000_000_000),  # 7B x 18 B = 126 GB (Lyceum's worked example)
    (70_000_000_000, 16, 1_120_000_000_000),  # 70B x 16 B = 1.12 TB
    (LLAMA3_8B_PARAMS, 16, 128_484_179_968),  # 8,030,261,248 x 16
])
def test_bytes_per_param_rule(parameters: int, bytes_per_param: int, expected: int) -> None:
    assert bytes_per_param_rule(parameters, bytes_per_param=bytes_per_param) == expected


@pytest.mark.parametrize(("weights", "fraction", "expected"), [
    (14_000_000_000, 0.10, 15_400_000_000),  # 7B in bf16 = 14 GB, +10 % = 15.4 GB
    (14_000_000_000, 0.20, 16_800_000_000),  # +20 % = 16.8 GB
    (0, 0.20, 0),
])
def test_lora_rule(weights: int, fraction: float, expected: int) -> None:
    assert lora_rule(weights, overhead_fraction=fraction) == expected


def test_inference_rule_default_factor_is_1_2() -> None:
    # 7B in bf16 = 14 GB of weights; x 1.2 = 16.8 GB
    assert inference_rule(14_000_000_000) == 16_800_000_000
    assert inference_rule(14_000_000_000, factor=1.0) == 14_000_000_000


def test_rules_full_fine_tuning_of_llama3_8b() -> None:
    rules = rule_estimates(_train("c", 1, config=LLAMA3_8B))
    assert rules[RULE_16] == 16 * LLAMA3_8B_PARAMS  # 128,484,179,968
    assert rules[RULE_18] == 18 * LLAMA3_8B_PARAMS  # 144,544,720,464
    assert rules[RULE_LORA_10] is None and rules[RULE_LORA_20] is None and rules[RULE_INFER] is None


def test_rules_lora_use_the_base_weights_in_their_format() -> None:
    # bf16 base: 2 x 8,030,261,248 = 16,060,522,496 B; +10 % = 17,666,574,745.6 -> 17,666,574,746;
    # +20 % = 19,272,626,995.2 -> 19,272,626,995
    rules = rule_estimates(_train("c", 1, method="lora", config=LLAMA3_8B, base_dtype="bf16"))
    assert rules[RULE_LORA_10] == 17_666_574_746
    assert rules[RULE_LORA_20] == 19_272_626_995
    assert rules[RULE_16] is None and rules[RULE_INFER] is None


def test_rules_lora_fp32_base_is_twice_the_bf16_base() -> None:
    # the tiny model's 95,040 parameters: fp32 = 380,160 B, +10 % = 418,176; bf16 half that
    fp32 = rule_estimates(_train("c", 1, method="lora", precision="fp32", weights="fp32"))
    bf16 = rule_estimates(_train("c", 1, method="lora", weights="bf16"))
    assert fp32[RULE_LORA_10] == 418_176
    assert bf16[RULE_LORA_10] == 209_088


def test_rules_qlora_base_is_nf4() -> None:
    nf4 = rule_estimates(_train("c", 1, method="qlora", config=LLAMA3_8B))
    bf16 = rule_estimates(_train("c", 1, method="lora", config=LLAMA3_8B, base_dtype="bf16"))
    assert nf4[RULE_LORA_20] is not None and bf16[RULE_LORA_20] is not None
    assert nf4[RULE_LORA_20] < bf16[RULE_LORA_20] / 2


def test_rules_inference_uses_the_served_weights() -> None:
    # bf16: 95,040 x 2 = 190,080 B, x 1.2 = 228,096; fp32: 380,160 x 1.2 = 456,192
    assert rule_estimates(_infer("c", 1))[RULE_INFER] == 228_096
    assert rule_estimates(_infer("c", 1, weights="fp32"))[RULE_INFER] == 456_192
    assert rule_estimates(_infer("c", 1))[RULE_16] is None


def test_bytes_per_param_rules_do_not_claim_non_adam_optimizers() -> None:
    for optimizer in ("sgd", "adafactor"):
        assert all(v is None for v in rule_estimates(_train("c", 1, optimizer=optimizer)).values())
    assert rule_estimates(_train("c", 1, optimizer="adamw-fused"))[RULE_16] == 16 * TINY_PARAMS


def test_rule_estimates_returns_every_rule_name() -> None:
    assert tuple(rule_estimates(_infer("c", 1))) == RULE_NAMES


def test_case_group() -> None:
    assert case_group(_train("c", 1)) == "full"
    assert case_group(_train("c", 1, method="lora")) == "lora"
    assert case_group(_train("c", 1, method="qlora")) == "lora"
    assert case_group(_infer("c", 1)) == "inference"


# ----------------------------------------------------------------------------- peer_error_rows

# The 16 B/param rule gives 16 x 95,040 = 1,520,640 B and 18 B/param 1,710,720 B for TINY.
# Case a measures 1,900,800 B: 16 B -> (1,520,640 - 1,900,800) / 1,900,800 = -0.2; 18 B -> -0.1.
# Case b measures 1,520,640 B: 16 B -> 0.0; 18 B -> +190,080 / 1,520,640 = +0.125.
RECORDS = [
    _train("a", 1_900_800),
    _train("b", 1_520_640),
    _infer("i", 200_000),
]
PEERS = {
    "provenance": {},
    "estimates": {
        "a": {"accelerate": 2_090_880, "llm-analysis": 950_400, "hf-mem": None},  # +0.1, -0.5
        "b": {"accelerate": None, "llm-analysis": 2_280_960, "hf-mem": None},  # -, +0.5
        "i": {"hf-mem": 150_000, "accelerate": 250_000},  # -0.25, +0.25
    },
}


def _row(rows: list[dict[str, Any]], group: str, estimator: str) -> dict[str, Any]:
    return next(r for r in rows if r["group"] == group and r["estimator"] == estimator)


def test_peer_error_rows_rules() -> None:
    rows = peer_error_rows(RECORDS, PEERS)
    r16 = _row(rows, "full", RULE_16)
    # |errors| sorted [0.0, 0.2]: median 0.1, p95 = 0 + 0.95 x 0.2 = 0.19, worst 0.2, mean (-0.2 + 0) / 2
    assert (r16["cases"], r16["group_cases"]) == (2, 2)
    assert r16["median"] == pytest.approx(0.1)
    assert r16["p95"] == pytest.approx(0.19)
    assert r16["worst"] == pytest.approx(0.2)
    assert r16["mean_signed"] == pytest.approx(-0.1)
    r18 = _row(rows, "full", RULE_18)
    # |errors| [0.1, 0.125]: median 0.1125, worst 0.125, mean (-0.1 + 0.125) / 2 = 0.0125
    assert r18["median"] == pytest.approx(0.1125)
    assert r18["worst"] == pytest.approx(0.125)
    assert r18["mean_signed"] == pytest.approx(0.0125)


def test_peer_error_rows_peers_only_count_covered_cases() -> None:
    rows = peer_error_rows(RECORDS, PEERS)
    acc = _row(rows, "full", "accelerate")
    assert (acc["cases"], acc["group_cases"]) == (1, 2)  # null for case b
    assert acc["median"] == pytest.approx(0.1) and acc["mean_signed"] == pytest.approx(0.1)
    llm = _row(rows, "full", "llm-analysis")  # -0.5 and +0.5
    assert llm["cases"] == 2
    assert llm["median"] == pytest.approx(0.5) and llm["mean_signed"] == pytest.approx(0.0)
    hf = _row(rows, "full", "hf-mem")  # covers nothing: listed with 0 cases and no statistics
    assert hf["cases"] == 0 and hf["median"] is None and hf["worst"] is None
    inf = _row(rows, "inference", "hf-mem")
    assert inf["cases"] == 1 and inf["mean_signed"] == pytest.approx(-0.25)
    assert _row(rows, "inference", "accelerate")["mean_signed"] == pytest.approx(0.25)


def test_peer_error_rows_layout() -> None:
    rows = peer_error_rows(RECORDS, PEERS)
    assert {r["group"] for r in rows} == {"full", "inference"}  # no LoRA record, no LoRA rows
    full = [r["estimator"] for r in rows if r["group"] == "full"]
    assert full == [OURS, RULE_16, RULE_18, *PEER_NAMES]  # rules that never apply are left out
    assert _row(rows, "full", OURS)["cases"] == 2
    assert peer_error_rows(RECORDS, PEERS["estimates"]) == rows  # the bare estimates mapping works too


def test_render_peer_table() -> None:
    rows = peer_error_rows(RECORDS, PEERS)
    text = render_peer_table(rows)
    assert "Full fine-tuning (2 cases)" in text and "Inference (1 case)" in text
    md = render_peer_table(rows, markdown=True)
    line = next(ln for ln in md.splitlines() if ln.startswith(f"| {RULE_16} |"))
    assert line == f"| {RULE_16} | 2/2 | 10.0 % | 19.0 % | 20.0 % | -10.0 % |"
    assert "| hf-mem | 0/2 | - | - | - | - |" in md


@pytest.mark.skipif(not PEER_FILE.exists(), reason="tests/data/peer_estimates.json not recorded yet")
def test_recorded_peer_estimates_are_well_formed() -> None:
    document = json.loads(PEER_FILE.read_text())
    assert set(document) == {"provenance", "estimates"}
    assert set(document["provenance"]["notes"]) == set(PEER_NAMES)
    for case_id, values in document["estimates"].items():
        assert set(values) == set(PEER_NAMES), case_id
        assert all(v is None or (isinstance(v, int) and v > 0) for v in values.values()), case_id
