"""The training-framework input: its catalog, its fitted factors, and how leave-one-source-out treats it."""

from __future__ import annotations

import json

import pytest
from support import DATA

from calculators.catalog.gpus import get_gpu
from calculators.catalog.models import get_model
from calculators.catalog.training_frameworks import DEFAULT_FRAMEWORK, get_training_framework, training_framework_ids
from calculators.catalog.utilisation import predicted_utilisation
from calculators.errors import InputError
from calculators.model_flops import linear_flops_share
from calculators.performance.training_time import training_time
from calculators.performance.utilisation import DEFAULT_FIT, Features, fit_utilisation
from calculators.speed_accuracy import training as accuracy

H100 = get_gpu("h100-sxm")
TRAINING = [json.loads(line) for line in (DATA / "published_speed" / "training.jsonl").read_text().splitlines()
            if line.strip()]


def test_every_record_names_a_catalog_framework() -> None:
    for record in TRAINING:
        framework = get_training_framework(record["training_framework"])
        # NeMo and Megatron-Bridge (the sources' own words) are Megatron-Core with Transformer Engine
        assert (framework.id == "megatron") == ("Megatron-Core" in record["framework"]), record["id"]


def test_unknown_framework_is_an_input_error_naming_the_field() -> None:
    with pytest.raises(InputError) as error:
        get_training_framework("jax")
    assert error.value.field == "framework"
    with pytest.raises(InputError) as error:
        training_time(get_model("llama-3-8b"), H100, tokens=10**9, framework="jax")
    assert error.value.field == "framework"


def test_default_is_the_reference_and_does_not_promise_megatron_speed() -> None:
    assert DEFAULT_FRAMEWORK == training_framework_ids()[0] == "pytorch"
    assert DEFAULT_FIT.framework[DEFAULT_FRAMEWORK] == 1.0
    # the published NeMo and Megatron-Bridge runs reach a higher utilisation than the FSDP family's
    assert DEFAULT_FIT.framework["megatron"] > 1.0
    assert predicted_utilisation(H100) < predicted_utilisation(H100, framework="megatron")


def test_a_framework_one_left_out_source_measures_falls_back_to_the_reference() -> None:
    # two sources of dense runs measure Megatron-Core (the MoE runs are scored, not fitted on): leaving one out, the
    # factor is fitted on the other's runs only
    nemo = accuracy.fit_training("nemo-24.07")
    bridge = {r["id"] for r in TRAINING if r["source_id"] == "megatron-bridge-perf-summary"}
    assert set(nemo.fitted_on["framework:megatron"]) == bridge
    # a framework no run is left for is absent from the fit, so it takes the reference's factor 1
    # (an H100 SXM's ridge point, 989.4 TFLOP/s over 3.35 TB/s: the run's utilisation fixes c)
    f = Features("hopper", False, "none", "full", framework="megatron", ridge_tokens=295.3)
    fit = fit_utilisation([("a", "s1", Features("hopper", False, "none", "full", ridge_tokens=295.3), 0.4)])
    assert "megatron" not in fit.framework and fit.predict(f) == pytest.approx(0.4)


def test_linear_share_counts_attention_products_as_16_bit() -> None:
    # Llama 3.1 8B at 8,192 tokens: N = 8,030,261,248 - 128,256 x 4,096 (embedding lookup) matmul parameters;
    # attention 12 x q_dim (4,096) x 32 layers x 8,192 attended tokens per token (Megatron-LM's count)
    n = 8030261248 - 128256 * 4096
    attention = 12 * 4096 * 32 * 8192
    share = 6 * n / (6 * n + attention)
    assert linear_flops_share(get_model("llama-3.1-8b"), seq=8192) == pytest.approx(share, rel=1e-3)


def test_fp8_is_amdahl_over_the_linear_share() -> None:
    # only the linear GEMMs run at the FP8 rate, twice the BF16 one on H100 (datasheet: 1,979 vs 989 TFLOP/s
    # dense): with share s of the FLOPs, time = s / 2 + (1 - s) of the BF16 time; utilisation is of the FP8 rate
    s = 0.8
    bf16 = predicted_utilisation(H100, framework="megatron")
    fp8 = predicted_utilisation(H100, framework="megatron", fp8=True, linear_share=s)
    ratio = H100.fp8_dense_flop_per_s / H100.bf16_dense_flop_per_s
    assert fp8 * ratio / bf16 == pytest.approx(1 / (s / ratio + 1 - s), rel=1e-3)
    # an all-attention model would gain nothing from FP8 matmuls
    assert predicted_utilisation(H100, framework="megatron", fp8=True, linear_share=1e-9) * ratio == pytest.approx(
        bf16, rel=1e-6)
