"""The measurement harness reproduces its recorded ground truth.

Re-runs the ``smoke`` grid of ``scripts/measure_memory.py`` (fake tensors) and
checks every recorded number exactly, then checks that fake-tensor tracking and
real-CPU tracking agree exactly on a tiny model.  Needs the ``[measure]`` extra
(torch, transformers, peft); skipped cleanly without it.
"""

from __future__ import annotations

import json
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from support import load_script

pytestmark = pytest.mark.measure

REPO = Path(__file__).resolve().parents[2]
SCRIPT = REPO / "scripts" / "measure_memory.py"
DATA = REPO / "tests" / "data" / "measurements"


def _load_script() -> ModuleType:
    """Import scripts/measure_memory.py (its module level needs only the standard library)."""
    return load_script("measure_memory", module_name="measure_memory_under_test")


def _harness() -> ModuleType:
    pytest.importorskip("torch")
    pytest.importorskip("transformers")
    pytest.importorskip("peft")
    return _load_script()


def _smoke_ids() -> list[str]:
    return [c.slug() for c in _load_script().GRIDS["smoke"]]


def _recorded(case_id: str) -> dict[str, Any]:
    for path in DATA.glob("*.json"):
        data = json.loads(path.read_text())
        for rec in data if isinstance(data, list) else [data]:
            if rec.get("id") == case_id:
                return rec
    raise AssertionError(f"no recorded measurement with id {case_id!r} under {DATA}")


@pytest.mark.parametrize("case_id", _smoke_ids())
def test_smoke_case_reproduces_recorded_json(case_id: str) -> None:
    mm = _harness()
    case = next(c for c in mm.GRIDS["smoke"] if c.slug() == case_id)
    recorded = _recorded(case_id)
    fresh = mm.run_case(case, "fake")
    assert fresh["id"] == recorded["id"]
    assert fresh["settings"] == recorded["settings"]
    assert fresh["model"] == recorded["model"]
    # every measured number, per phase, per step, breakdowns and boundaries
    assert fresh["measured"] == recorded["measured"]
    assert fresh["provenance"]["adjustments"] == recorded["provenance"]["adjustments"]


def test_fake_and_real_cpu_tracking_agree() -> None:
    mm = _harness()
    case = mm.Case("tiny-llama", "train", precision="bf16-mixed", optimizer="adamw", batch=2, seq=64)
    fake = mm.run_case(case, "fake")["measured"]
    real = mm.run_case(case, "cpu")["measured"]
    assert fake["phase_peaks"] == real["phase_peaks"]
    assert fake["phase_peaks_per_step"] == real["phase_peaks_per_step"]
    assert fake["boundaries"] == real["boundaries"]
    assert fake["breakdown_at_phase_peaks"] == real["breakdown_at_phase_peaks"]
    assert fake["sdpa_calls"] == real["sdpa_calls"]
    assert fake["peak_allocated_bytes"] > 0


def test_fake_and_real_cpu_agree_for_lora_and_inference() -> None:
    mm = _harness()
    for case in (
        mm.Case("tiny-llama", "train", method="lora", weights="bf16", lora_rank=4,
                lora_targets=("q", "k", "v", "o", "gate", "up", "down"), batch=1, seq=64,
                grad_checkpointing=True),
        mm.Case("tiny-llama", "infer", weights="bf16", batch=2, context=64, new_tokens=3),
    ):
        fake = mm.run_case(case, "fake")["measured"]
        real = mm.run_case(case, "cpu")["measured"]
        for key in ("phase_peaks", "boundaries", "breakdown_at_phase_peaks", "kv_cache_bytes"):
            assert fake[key] == real[key], (case.slug(), key)


#: Two-layer encoders, one per family the embed cases trace: a BERT and a ModernBERT whose 64-token local
#: window is shorter than the traced sequences (the local layers get their own mask).
TINY_ENCODERS = (
    {"architectures": ["BertModel"], "model_type": "bert", "vocab_size": 1000, "hidden_size": 128,
     "num_hidden_layers": 2, "num_attention_heads": 4, "intermediate_size": 512, "max_position_embeddings": 512,
     "type_vocab_size": 2},
    {"architectures": ["ModernBertModel"], "model_type": "modernbert", "vocab_size": 1000, "hidden_size": 128,
     "num_hidden_layers": 4, "num_attention_heads": 4, "intermediate_size": 192, "max_position_embeddings": 1024,
     "global_attn_every_n_layers": 3, "local_attention": 64, "pad_token_id": 0},
)


@pytest.mark.parametrize("attention", ["sdpa", "eager"])
def test_fake_and_real_cpu_agree_for_encoders(attention: str) -> None:
    """The padded batch's mask (real zeros on the CPU) and ModernBERT's skipped truncated-normal init under fake
    tensors leave the recorded peak exactly as a real forward has it."""
    mm = _harness()
    for config in TINY_ENCODERS:
        case = mm.Case(config["model_type"], "embed", weights="bf16", batch=4, seq=128, attention=attention,
                       model_config=config)
        fake = mm.run_case(case, "fake")["measured"]
        real = mm.run_case(case, "cpu")["measured"]
        for key in ("phase_peaks", "boundaries", "breakdown_at_phase_peaks", "sdpa_calls"):
            assert fake[key] == real[key], (case.slug(), key)
