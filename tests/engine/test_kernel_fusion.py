"""Unfused elementwise traffic (calculators.model_flops.unfused_bytes_per_flop): the bytes, and the published compile pairs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from calculators.catalog.models import get_model
from calculators.model_flops import runs_unfused, training_flops_per_token, unfused_bytes_per_flop
from calculators.speed_accuracy import training

DATA = Path(__file__).resolve().parents[1] / "data" / "published_speed" / "training.jsonl"


def test_unfused_bytes_are_counted_per_layer_from_the_module_code() -> None:
    # Llama 2 7B (hidden 4096, MHA: q = kv = 4096, MLP 11008, 32 layers), one forward and one backward per token:
    # (64 + 128) x 4096 + (16 + 32) x 8192 + (4 + 8) x 11008 bytes per layer, over 6N + attention FLOPs at seq 4096
    spec = get_model("llama-2-7b")
    per_layer = 192 * 4096 + 48 * 8192 + 12 * 11008
    expected = 32 * per_layer / training_flops_per_token(spec, seq=4096)
    assert unfused_bytes_per_flop(spec, seq=4096) == pytest.approx(expected)
    # full recomputation runs the forward's elementwise kernels twice, over 8N instead of 6N FLOPs
    again = 32 * (per_layer + 64 * 4096 + 16 * 8192 + 4 * 11008)
    assert unfused_bytes_per_flop(spec, seq=4096, grad_checkpointing=True) == pytest.approx(
        again / training_flops_per_token(spec, seq=4096, grad_checkpointing=True))


def test_only_the_pytorch_family_without_fused_kernels_pays_them() -> None:
    assert runs_unfused("pytorch") and not runs_unfused("pytorch", fused_kernels=True)
    assert not runs_unfused("megatron") and not runs_unfused("megatron", fused_kernels=False)


@pytest.mark.parametrize(("compiled", "eager"), [
    # torchtitan, Llama 3.1 8B on 8 and 128 H100 (96GB HBM2e): 6,667 / 5,762 and 6,514 / 5,605 tokens/s per GPU
    ("pt-torchtitan-h100-llama-3.1-8b-8gpu-fsdp-compile", "pt-torchtitan-h100-llama-3.1-8b-8gpu-fsdp"),
    ("pt-torchtitan-h100-llama-3.1-8b-128gpu-fsdp-compile", "pt-torchtitan-h100-llama-3.1-8b-128gpu-fsdp"),
    # torchtune, Llama 3.2 3B on an A100: '+ Compile' 8,998 against 7,075 tokens/s
    ("ft-torchtune-llama-3.2-3b-compile", "ft-torchtune-llama-3.2-3b-packed"),
])
def test_published_compile_gains_are_in_the_direction_and_size_the_bytes_give(compiled: str, eager: str) -> None:
    with DATA.open(encoding="utf-8") as handle:
        records = {r["id"]: r for r in (json.loads(line) for line in handle if line.strip())}
    fast, slow = records[compiled], records[eager]
    assert fast["fused_kernels"] and not slow.get("fused_kernels")
    measured = float(fast["measured"]) / float(slow["measured"])
    fit = training.full_fit()
    modelled = training.estimate_training(fast, fit) / training.estimate_training(slow, fit)
    # the bytes explain most of the published gain (the rest: fewer kernel launches, not counted)
    assert 1.05 < modelled <= measured
