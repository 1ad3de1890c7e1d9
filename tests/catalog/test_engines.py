"""The engine catalog: every fitted constant names its figures and equals a refit on them.

Expected values are not typed here: they come from refitting the dataset
(tests/data/published_speed) with calculators.speed_accuracy.fit, which is what
``scripts/score_speed.py --write-fits`` wrote into calculators/catalog/engine_fits.py.
"""

from __future__ import annotations

import functools
import math

import pytest

from calculators.catalog.engines import (
    COMPUTE_KEYS,
    FITTED_NAMES,
    GENERIC,
    POOLED,
    Engine,
    Fitted,
    all_engines,
    engine_at_version,
    get_engine,
)
from calculators.catalog.gpus import get_gpu
from calculators.catalog.models import get_model
from calculators.errors import InputError
from calculators.performance.inference_speed import SpeedSetup, decode_step, inference_speed
from calculators.speed_accuracy.data import load_figures, scored
from calculators.speed_accuracy.fit import NAMES, Fit, fit_catalog
from calculators.speed_accuracy.predict import prepare

FIGURE_IDS = {str(f["id"]) for f in load_figures()}


def _constants(engine: Engine) -> dict[str, Fitted]:
    constants = {name: getattr(engine, name) for name in FITTED_NAMES}
    constants.update({f"compute:{key}": engine.compute_fitted(key) for key in COMPUTE_KEYS})
    return constants


@functools.cache
def _refit() -> dict[str, Fit]:
    return fit_catalog(prepare(f) for f in scored(load_figures()))


def test_the_required_engines_are_catalogued() -> None:
    ids = {engine.id for engine in all_engines()}
    assert ids >= {"generic", "transformers", "vllm", "sglang", "tensorrt-llm", "llama.cpp"}


@pytest.mark.parametrize("engine", [e for e in all_engines() if e.id != "generic"], ids=lambda e: e.id)
def test_every_fitted_value_names_existing_figures(engine: Engine) -> None:
    for name, fitted in _constants(engine).items():
        if fitted.value is None:
            assert not fitted.fitted_on, name
            continue
        assert fitted.fitted_on, f"{engine.id}.{name} has a value but names no figure"
        assert set(fitted.fitted_on) <= FIGURE_IDS, f"{engine.id}.{name} names unknown figures"


@pytest.mark.parametrize("engine", [e for e in all_engines() if e.id != "generic"], ids=lambda e: e.id)
def test_catalog_equals_a_refit_on_the_dataset(engine: Engine) -> None:
    fit = _refit().get(engine.fit_id)
    for name, fitted in _constants(engine).items():
        if fit is None or name not in fit.fitted_on:
            assert fitted.value is None, f"{engine.id}.{name}: no figure informs it, so it must be pooled"
            continue
        assert fitted.fitted_on == fit.fitted_on[name]
        assert fitted.value is not None and math.isclose(fitted.value, fit.values[name], rel_tol=0.02), name


def test_pooled_fit_is_catalogued_and_bounded() -> None:
    fit = _refit()["pooled"]
    for name, fitted in _constants(POOLED).items():
        assert fitted.value is not None and math.isclose(fitted.value, fit.values[name], rel_tol=0.02), name
        if "overhead" not in name:
            assert 0 < fitted.value <= 1, name


def test_generic_is_the_earlier_assumption() -> None:
    # calculators.performance.inference_speed's documented defaults before engines: 0.8 and 0.6, no fixed costs.
    setup = SpeedSetup.of(weights="bf16")
    assert (setup.engine, setup.bandwidth_efficiency, setup.compute_efficiency) == ("generic", 0.8, 0.6)
    assert setup.step_overhead_s_per_layer == 0 and setup.request_overhead_s == 0
    assert GENERIC.value("moe_expert_efficiency") == 1.0


def test_every_constant_name_is_fitted_somewhere() -> None:
    assert set(NAMES) == set(FITTED_NAMES) | {f"compute:{key}" for key in COMPUTE_KEYS}


def test_unknown_engine_is_an_error_naming_the_field() -> None:
    with pytest.raises(InputError, match="engine"):
        get_engine("deepspeed-mii")
    with pytest.raises(InputError, match="engine"):
        inference_speed(get_model("llama-3-8b"), get_gpu("h100-sxm"), engine="nope")


def test_fixed_cost_per_step_slows_small_models_most() -> None:
    # The engine's cost per layer is the same for both models; the 1B model's memory time is a fraction of the 8B's.
    gpu = get_gpu("h100-sxm")
    small, large = get_model("llama-3.2-1b"), get_model("llama-3-8b")

    def slowdown(spec: object) -> float:
        generic = decode_step(spec, gpu, engine="generic", bandwidth_efficiency=1.0, context=512)  # type: ignore[arg-type]
        eager = decode_step(spec, gpu, engine="transformers", bandwidth_efficiency=1.0, context=512)  # type: ignore[arg-type]
        return eager.time_s / generic.time_s

    assert slowdown(small) > slowdown(large) > 1


def test_request_overhead_is_in_the_time_to_first_token_only() -> None:
    spec, gpu = get_model("llama-2-7b"), get_gpu("a100-80gb-sxm")
    result = inference_speed(spec, gpu, engine="tensorrt-llm", context=128, new_tokens=2)
    setup = SpeedSetup.of(engine="tensorrt-llm", weights="bf16")  # Llama 2 7B is stored in 16 bits
    assert result.time_to_first_token_s == pytest.approx(result.prefill.time_s + setup.request_overhead_s)
    assert result.generation_time_s == pytest.approx(result.time_to_first_token_s + result.last_step.time_s,
                                                     rel=0.01)


@pytest.mark.parametrize("version, expected", [
    # TensorRT-LLM's XQA blog (docs/source/blogs/XQA-kernel.md): the kernel ships in the v0.8 releases; its release
    # notes for 0.10.0: "Added FP8 quantization support for Mixtral" (no FP8 MoE GEMM before).
    ("v0.5.0", "tensorrt-llm-0.7"), ("v0.6.1", "tensorrt-llm-0.7"), ("0.7.1", "tensorrt-llm-0.7"),
    ("v0.8.0", "tensorrt-llm-0.9"), ("v0.9.0", "tensorrt-llm-0.9"), ("v0.10.0", "tensorrt-llm"), (None, "tensorrt-llm"),
    ("main", "tensorrt-llm"),
])
def test_tensorrt_llm_before_xqa_is_its_own_catalog_entry(version: str | None, expected: str) -> None:
    assert engine_at_version("tensorrt-llm", version) == expected


def test_the_pre_fp8_moe_entries_share_tensorrt_llms_fitted_constants() -> None:
    # v0.9.0's MoE plugin builds runners for 16-bit or FP32 activations only (TENSORRT_LLM_MOE_GEMM_SOURCE).
    for old_id in ("tensorrt-llm-0.7", "tensorrt-llm-0.9"):
        old, new = get_engine(old_id), get_engine("tensorrt-llm")
        assert (old.moe_gemm_16bit, new.moe_gemm_16bit) == (True, False)
        assert old.fit_id == "tensorrt-llm" and _constants(old) == _constants(new)
    assert get_engine("tensorrt-llm-0.9").grouped_query_decode == "grouped"  # XQA since v0.8


def test_the_pre_xqa_entry_shares_tensorrt_llms_fitted_constants() -> None:
    old, new = get_engine("tensorrt-llm-0.7"), get_engine("tensorrt-llm")
    assert (old.grouped_query_decode, new.grouped_query_decode) == ("per-head", "grouped")
    assert old.fit_id == "tensorrt-llm" and _constants(old) == _constants(new)


def test_every_engine_names_how_it_reads_grouped_kv_heads() -> None:
    from calculators.catalog.engines import KV_HEAD_READS

    for engine in all_engines():
        assert engine.grouped_query_decode in KV_HEAD_READS, engine.id
        # Anything but the default is a stated fact: it must name the document that says so.
        assert engine.grouped_query_decode == "grouped" or engine.grouped_query_source is not None, engine.id


def test_tensorrt_llm_before_v0_8_all_reduces_with_nccls_ring() -> None:
    # NCCL_ALL_REDUCE_SOURCE: the early build scripts made the custom all-reduce an opt-in --use_custom_all_reduce
    # flag, and the v0.5 / v0.6.1 tables were built without it; a later unified build turns it on by default.
    from calculators.catalog.engines import NCCL_ALL_REDUCE_SOURCE
    from calculators.parallel.tensor import tensor_parallel_communication

    old, new = get_engine("tensorrt-llm-0.7"), get_engine("tensorrt-llm")
    assert (old.custom_all_reduce, new.custom_all_reduce) == (False, True)
    assert "use_custom_all_reduce" in NCCL_ALL_REDUCE_SOURCE.title
    spec, gpu = get_model("llama-2-70b"), get_gpu("h100-sxm")
    steps = {e: decode_step(spec, gpu, engine=e, weights="fp8", kv_cache="fp8", batch=1, context=128, gpus=4)
             for e in ("tensorrt-llm-0.7", "tensorrt-llm")}
    link = SpeedSetup.of(engine="tensorrt-llm-0.7", weights="fp8", gpus=4).link(gpu)
    ring = tensor_parallel_communication(spec, tokens=1, gpus=4, link=link, custom_kernel=False)
    assert steps["tensorrt-llm-0.7"].communication_time_s == pytest.approx(ring.time_s)
    # A ring all-reduce over 4 GPUs takes 2 x (4 - 1) = 6 latency-bound steps; the one-stage kernel one.
    assert steps["tensorrt-llm-0.7"].communication_time_s > 2 * steps["tensorrt-llm"].communication_time_s


def test_ollama_is_llama_cpps_kernels_and_constants() -> None:
    # ollama/ollama llama/README.md ('Vendoring'): Ollama builds from a vendored llama.cpp and ggml with a few patches,
    # so it has no constants of its own: an answer through it is llama.cpp's, Metal fixed cost included.
    from calculators.catalog.engines import OLLAMA_VENDORS_SOURCE

    ollama, llama = get_engine("ollama"), get_engine("llama.cpp")
    assert "vendors llama.cpp and ggml" in OLLAMA_VENDORS_SOURCE.title and ollama.source == OLLAMA_VENDORS_SOURCE
    assert ollama.fit_id == "llama.cpp" and ollama.family_id == "llama.cpp"
    spec = get_model("llama-3.2-3b-instruct")
    for gpu in (get_gpu("m3-ultra"), get_gpu("rtx-4090")):
        through = {e: decode_step(spec, gpu, engine=e, weights="q4_k_m", context=256) for e in ("ollama", "llama.cpp")}
        assert through["ollama"].time_s == pytest.approx(through["llama.cpp"].time_s)
    assert ollama.metal_step_s_per_layer == llama.metal_step_s_per_layer > 0
