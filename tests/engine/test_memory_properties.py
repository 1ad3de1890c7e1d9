"""Invariants of the memory estimates, checked on random small Llama-style models.

These are the house-style invariants (STYLE.md, Tests): more parameters, batch or
sequence never need less memory; sharding never needs more per GPU; a smaller dtype never
needs more bytes; and the result object is internally consistent. None needs a numeric
expected value: each compares the calculator with itself under a change whose direction
is known.
"""

from __future__ import annotations

import math
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from calculators import (
    ModelSpec,
    get_model,
    inference_memory,
    kv_cache_bytes,
    max_batch_for_memory,
    max_context_for_memory,
    training_memory,
)
from calculators.memory.inference import MAX_BATCH, MAX_CONTEXT
from calculators.memory.result import MemoryEstimate
from calculators.model_config import spec_from_config

GIB = 2**30
PROPERTY = settings(max_examples=40, deadline=None, database=None)

LORA_TARGETS = ("q", "k", "v", "o", "gate", "up", "down")


# ------------------------------------------------------------------ strategies
@st.composite
def llama_configs(draw: st.DrawFn, *, min_layers: int = 1, max_layers: int = 6) -> dict[str, Any]:
    """A valid Llama-style config small enough to evaluate quickly."""
    kv_heads = draw(st.sampled_from([1, 2, 4]))
    groups = draw(st.sampled_from([1, 2, 4]))
    heads = kv_heads * groups
    head_dim = draw(st.sampled_from([8, 16, 32, 64]))
    return {
        "model_type": "llama",
        "hidden_size": heads * head_dim,
        "num_hidden_layers": draw(st.integers(min_layers, max_layers)),
        "num_attention_heads": heads,
        "num_key_value_heads": kv_heads,
        "intermediate_size": draw(st.integers(8, 1024)),
        "vocab_size": draw(st.integers(16, 4096)),
        "tie_word_embeddings": draw(st.booleans()),
    }


@st.composite
def training_settings(draw: st.DrawFn) -> dict[str, Any]:
    method = draw(st.sampled_from(["full", "lora", "qlora"]))
    precision = draw(st.sampled_from(["fp32", "bf16-mixed", "fp16-mixed", "bf16", "fp16"]))
    return {
        "method": method,
        "precision": precision,
        "optimizer": draw(st.sampled_from(["adamw", "adamw-fused", "adamw-8bit", "paged-adamw-8bit", "sgd",
                                           "adafactor"])),
        "batch": draw(st.integers(1, 8)),
        "seq": draw(st.integers(1, 512)),
        "grad_checkpointing": draw(st.booleans()),
        "attention": draw(st.sampled_from(["sdpa", "eager"])),
        "lora_rank": draw(st.integers(1, 64)),
        "lora_targets": draw(st.lists(st.sampled_from(LORA_TARGETS), min_size=1, max_size=7, unique=True)),
        "grad_accumulation": draw(st.sampled_from([1, 4])),
    }


def _spec(config: dict[str, Any]) -> ModelSpec:
    return spec_from_config(config)


def _peak(config: dict[str, Any], **kwargs: Any) -> int:
    return training_memory(_spec(config), **kwargs).peak_allocated_bytes


def _total(config: dict[str, Any], **kwargs: Any) -> int:
    return training_memory(_spec(config), **kwargs).total_bytes


# ------------------------------------------------------------------ training monotonicity
@PROPERTY
@given(config=llama_configs(), setup=training_settings(), extra=st.integers(1, 8))
def test_training_peak_never_decreases_with_batch(config: dict[str, Any], setup: dict[str, Any], extra: int) -> None:
    small = _peak(config, **setup)
    large = _peak(config, **{**setup, "batch": setup["batch"] + extra})
    assert large >= small


@PROPERTY
@given(config=llama_configs(), setup=training_settings(), extra=st.integers(1, 512))
def test_training_peak_never_decreases_with_seq(config: dict[str, Any], setup: dict[str, Any], extra: int) -> None:
    small = _peak(config, **setup)
    large = _peak(config, **{**setup, "seq": setup["seq"] + extra})
    assert large >= small


@PROPERTY
@given(config=llama_configs(), setup=training_settings(), extra=st.integers(1, 64),
       method=st.sampled_from(["lora", "qlora"]))
def test_training_peak_never_decreases_with_lora_rank(config: dict[str, Any], setup: dict[str, Any],
                                                      extra: int, method: str) -> None:
    setup = {**setup, "method": method}
    small = _peak(config, **setup)
    large = _peak(config, **{**setup, "lora_rank": setup["lora_rank"] + extra})
    assert large >= small


@PROPERTY
@given(config=llama_configs(), setup=training_settings(), extra=st.integers(1, 4))
def test_training_peak_never_decreases_with_layers(config: dict[str, Any], setup: dict[str, Any],
                                                   extra: int) -> None:
    deeper = {**config, "num_hidden_layers": config["num_hidden_layers"] + extra}
    assert _spec(deeper).parameters > _spec(config).parameters
    assert _peak(deeper, **setup) >= _peak(config, **setup)


@PROPERTY
@given(config=llama_configs(), setup=training_settings(), factor=st.sampled_from([2, 4]))
def test_training_peak_never_decreases_with_hidden(config: dict[str, Any], setup: dict[str, Any],
                                                   factor: int) -> None:
    # Wider heads widen the hidden size (hidden = heads x head_dim), so every matrix grows.
    wider = {**config, "hidden_size": config["hidden_size"] * factor}
    assert _spec(wider).parameters > _spec(config).parameters
    assert _peak(wider, **setup) >= _peak(config, **setup)


@PROPERTY
@given(config=llama_configs(), setup=training_settings(), extra=st.integers(1, 1024))
def test_training_peak_never_decreases_with_mlp_width(config: dict[str, Any], setup: dict[str, Any],
                                                      extra: int) -> None:
    wider = {**config, "intermediate_size": config["intermediate_size"] + extra}
    assert _peak(wider, **setup) >= _peak(config, **setup)


# Regression guard: without checkpointing, the end of backward must still count layer 0's
# saved activations (alive while its backward runs), or checkpointing comes out larger
# than the plain run when the end of backward is the peak (fused AdamW, SGD, short sequences).


@PROPERTY
@given(config=llama_configs(), setup=training_settings())
@example(  # the counterexample hypothesis once found (a regression guard)
    config={"model_type": "llama", "hidden_size": 8, "num_hidden_layers": 1, "num_attention_heads": 1,
            "num_key_value_heads": 1, "intermediate_size": 8, "vocab_size": 16, "tie_word_embeddings": False},
    setup={"method": "full", "precision": "fp32", "optimizer": "adamw", "batch": 1, "seq": 5,
           "grad_checkpointing": False, "attention": "sdpa", "lora_rank": 1, "lora_targets": ["q"],
           "grad_accumulation": 1},
)
def test_gradient_checkpointing_never_needs_more(config: dict[str, Any], setup: dict[str, Any]) -> None:
    # Checkpointing keeps layer inputs instead of every saved tensor and recomputes one
    # layer at a time inside backward. The one thing it can hold that the plain run does
    # not is a layer's checkpointed input while that layer is recomputed (the plain run
    # may never save it: a frozen embedding's output under LoRA, or a 16-bit input whose
    # fp32 upcast is what gets saved). So it never needs more than one layer input,
    # at most 4 bytes x hidden x tokens, beyond the plain run.
    plain = _peak(config, **{**setup, "grad_checkpointing": False})
    checkpointed = _peak(config, **{**setup, "grad_checkpointing": True})
    one_layer_input = 4 * config["hidden_size"] * setup["batch"] * setup["seq"]
    assert checkpointed <= plain + one_layer_input


def test_checkpointing_counts_layer0_saved_activations_in_plain_backward_end() -> None:
    # A real model: Llama 3.2 1B, full fine-tuning, fused AdamW (no step temporary), so the
    # peak is the end of backward in both runs.
    spec = get_model("llama-3.2-1b")
    setup = {"method": "full", "precision": "bf16-mixed", "optimizer": "adamw-fused", "batch": 1, "seq": 512}
    plain = training_memory(spec, **setup, grad_checkpointing=False)
    checkpointed = training_memory(spec, **setup, grad_checkpointing=True)
    assert checkpointed.peak_allocated_bytes <= plain.peak_allocated_bytes


# ------------------------------------------------------------------ sharding
# Under ZeRO-3 each GPU all-gathers (and prefetches) up to two layers' 16-bit weights on
# top of its 1/N shard. For a 1-4 layer toy model those two gathered layers can outweigh
# what sharding saves, so stage 3 legitimately needs more than stage 2 there; the
# comparison below uses models of at least 8 layers, where two layers are at most a
# quarter of the weights and N >= 2 saves at least half of them.
@PROPERTY
@given(config=llama_configs(min_layers=8, max_layers=16), setup=training_settings(),
       gpus=st.integers(2, 64), stage=st.sampled_from([0, 1, 2]), method=st.sampled_from(["full", "lora"]))
def test_higher_zero_stage_never_needs_more_per_gpu(config: dict[str, Any], setup: dict[str, Any], gpus: int,
                                                     stage: int, method: str) -> None:
    setup = {**setup, "method": method}
    lower = _peak(config, **setup, gpus=gpus, zero=stage)
    higher = _peak(config, **setup, gpus=gpus, zero=stage + 1)
    assert higher <= lower


@PROPERTY
@given(config=llama_configs(min_layers=8, max_layers=16), setup=training_settings(), gpus=st.integers(2, 64))
@example(  # the counterexample hypothesis once found (a regression guard)
    config={"model_type": "llama", "hidden_size": 8, "num_hidden_layers": 8, "num_attention_heads": 1,
            "num_key_value_heads": 1, "intermediate_size": 8, "vocab_size": 16, "tie_word_embeddings": False},
    setup={"method": "qlora", "precision": "fp32", "optimizer": "adamw", "batch": 1, "seq": 1,
           "grad_checkpointing": False, "attention": "sdpa", "lora_rank": 1, "lora_targets": ["q"],
           "grad_accumulation": 1},
    gpus=2,
)
def test_zero3_gathers_qlora_layers_in_storage_dtype(config: dict[str, Any], setup: dict[str, Any],
                                                     gpus: int) -> None:
    # Sharding saves (1 - 1/N) of >= 8 layers' NF4 weights; gathering costs two layers in
    # NF4 (plus one linear's 16-bit dequantised copy), so stage 3 <= stage 2 for N >= 2.
    setup = {**setup, "method": "qlora"}
    assert _peak(config, **setup, gpus=gpus, zero=3) <= _peak(config, **setup, gpus=gpus, zero=2)


@PROPERTY
@given(config=llama_configs(min_layers=8, max_layers=16), setup=training_settings(),
       gpus=st.integers(1, 64), more=st.integers(1, 64), method=st.sampled_from(["full", "lora"]))
def test_zero3_more_gpus_never_need_more_per_gpu(config: dict[str, Any], setup: dict[str, Any], gpus: int,
                                                 more: int, method: str) -> None:
    # QLoRA is covered by test_zero3_gathers_qlora_layers_in_storage_dtype.
    setup = {**setup, "method": method}
    fewer = _peak(config, **setup, gpus=gpus, zero=3)
    many = _peak(config, **setup, gpus=gpus + more, zero=3)
    assert many <= fewer


@PROPERTY
@given(config=llama_configs(), setup=training_settings(), gpus=st.integers(2, 64), more=st.integers(1, 64),
       stage=st.sampled_from([1, 2]))
def test_zero12_more_gpus_never_need_more_per_gpu(config: dict[str, Any], setup: dict[str, Any], gpus: int,
                                                  more: int, stage: int) -> None:
    # Stages 1 and 2 only divide terms by N; no gathered copies are added.
    fewer = _peak(config, **setup, gpus=gpus, zero=stage)
    many = _peak(config, **setup, gpus=gpus + more, zero=stage)
    assert many <= fewer


# ------------------------------------------------------------------ result consistency
def _check_estimate(estimate: MemoryEstimate) -> None:
    numbers = {
        "parameters": estimate.parameters,
        "trainable_parameters": estimate.trainable_parameters,
        "active_parameters": estimate.active_parameters,
        "peak_allocated_bytes": estimate.peak_allocated_bytes,
        "total_bytes": estimate.total_bytes,
        **{f"breakdown.{k}": v for k, v in estimate.breakdown.items()},
        **{f"phase_peaks.{k}": v for k, v in estimate.phase_peaks.items()},
        **{f"overhead.{k}": v for k, v in estimate.overhead.items()},
    }
    for name, value in numbers.items():
        assert isinstance(value, int) and not isinstance(value, bool), (name, value)
        assert value >= 0, (name, value)
        assert math.isfinite(value), (name, value)
    peak = estimate.peak_allocated_bytes
    assert estimate.total_bytes >= peak
    assert estimate.peak_phase in estimate.phase_peaks
    assert estimate.phase_peaks[estimate.peak_phase] == peak
    assert max(estimate.phase_peaks.values()) == peak
    for name, value in estimate.breakdown.items():
        assert value <= peak, (name, value, peak)
    assert sum(estimate.breakdown.values()) == peak, (dict(estimate.breakdown), peak, estimate.peak_phase)


@PROPERTY
@given(config=llama_configs(), setup=training_settings(), gpus=st.integers(1, 16), zero=st.integers(0, 3))
def test_training_estimate_consistent(config: dict[str, Any], setup: dict[str, Any], gpus: int, zero: int) -> None:
    _check_estimate(training_memory(_spec(config), **setup, gpus=gpus, zero=zero))


@st.composite
def inference_settings(draw: st.DrawFn) -> dict[str, Any]:
    return {
        "weights": draw(st.sampled_from(["fp32", "bf16", "fp16", "fp8", "int8", "int4"])),
        "kv_cache": draw(st.sampled_from(["fp32", "bf16", "fp16", "fp8"])),
        "batch": draw(st.integers(1, 16)),
        "context": draw(st.integers(1, 4096)),
        "new_tokens": draw(st.integers(0, 512)),
        "attention": draw(st.sampled_from(["sdpa", "eager"])),
    }


@PROPERTY
@given(config=llama_configs(), setup=inference_settings())
def test_inference_estimate_consistent(config: dict[str, Any], setup: dict[str, Any]) -> None:
    _check_estimate(inference_memory(_spec(config), **setup))


# ------------------------------------------------------------------ dtypes
@PROPERTY
@given(config=llama_configs(), setup=inference_settings())
def test_smaller_weight_dtype_never_needs_more(config: dict[str, Any], setup: dict[str, Any]) -> None:
    spec = _spec(config)
    order = ["fp32", "bf16", "int8", "int4"]  # 4, 2, 1, 0.5 bytes per element (+ scales)
    # With eager attention the scores are the exception (see the test below), so the peak
    # ordering is checked on the SDPA path; the weights ordering holds everywhere.
    setup = {**setup, "attention": "sdpa"}
    peaks = [inference_memory(spec, **{**setup, "weights": w}).peak_allocated_bytes for w in order]
    weights = [inference_memory(spec, **{**setup, "weights": w}).breakdown["weights"] for w in order]
    assert peaks == sorted(peaks, reverse=True), dict(zip(order, peaks))
    assert weights == sorted(weights, reverse=True), dict(zip(order, weights))


@PROPERTY
@given(config=llama_configs(), setup=inference_settings())
def test_smaller_kv_dtype_never_needs_more(config: dict[str, Any], setup: dict[str, Any]) -> None:
    spec = _spec(config)
    order = ["fp32", "bf16", "fp8"]  # 4, 2, 1 bytes per element
    peaks = [inference_memory(spec, **{**setup, "kv_cache": k}).peak_allocated_bytes for k in order]
    caches = [kv_cache_bytes(spec, batch=setup["batch"], context=setup["context"], kv_dtype=k) for k in order]
    assert peaks == sorted(peaks, reverse=True), dict(zip(order, peaks))
    assert caches == sorted(caches, reverse=True), dict(zip(order, caches))


# ------------------------------------------------------------------ KV cache scaling
@PROPERTY
@given(config=llama_configs(), batch=st.integers(1, 64), context=st.integers(1, 1 << 16),  # context >= 1 (issue #17)
       factor=st.integers(2, 16), kv=st.sampled_from(["fp32", "bf16", "fp8"]))
def test_kv_cache_linear_in_batch_and_context(config: dict[str, Any], batch: int, context: int, factor: int,
                                              kv: str) -> None:
    # Full attention (no sliding window): every token of every sequence is cached.
    spec = _spec(config)
    assert spec.sliding_window is None
    base = kv_cache_bytes(spec, batch=batch, context=context, kv_dtype=kv)
    assert kv_cache_bytes(spec, batch=batch * factor, context=context, kv_dtype=kv) == factor * base
    assert kv_cache_bytes(spec, batch=batch, context=context * factor, kv_dtype=kv) == factor * base
    # Per token per sequence: 2 (K and V) x layers x kv_dim x bytes.
    per_token = 2 * spec.num_layers * spec.kv_dim * {"fp32": 4, "bf16": 2, "fp8": 1}[kv]
    assert base == batch * context * per_token


# ------------------------------------------------------------------ max context / batch
# "Fits" is the verdict of calculators.fit: total_bytes plus its measured uncertainty
# (total_upper_bytes) within the memory, so the limits are tight against total_upper_bytes.
@PROPERTY
@given(config=llama_configs(), memory_gib=st.floats(0.5, 8.0), more_gib=st.floats(0.0, 8.0),
       batch=st.integers(1, 8), attention=st.sampled_from(["sdpa", "eager"]))
def test_max_context_monotone_and_tight(config: dict[str, Any], memory_gib: float, more_gib: float, batch: int,
                                        attention: str) -> None:
    spec = _spec(config)
    memory = int(memory_gib * GIB)
    bigger = int((memory_gib + more_gib) * GIB)
    found = max_context_for_memory(spec, memory_bytes=memory, batch=batch, attention=attention)
    assert max_context_for_memory(spec, memory_bytes=bigger, batch=batch, attention=attention) >= found
    if found > 0:
        assert inference_memory(spec, batch=batch, context=found, attention=attention).total_upper_bytes <= memory
    else:
        assert inference_memory(spec, batch=batch, context=1, attention=attention).total_upper_bytes > memory
    if 0 < found < MAX_CONTEXT:
        assert inference_memory(spec, batch=batch, context=found + 1, attention=attention).total_upper_bytes > memory


@PROPERTY
@given(config=llama_configs(), memory_gib=st.floats(0.5, 8.0), more_gib=st.floats(0.0, 8.0),
       context=st.integers(1, 8192), new_tokens=st.integers(0, 512))
def test_max_batch_monotone_and_tight(config: dict[str, Any], memory_gib: float, more_gib: float, context: int,
                                      new_tokens: int) -> None:
    spec = _spec(config)
    memory = int(memory_gib * GIB)
    bigger = int((memory_gib + more_gib) * GIB)
    found = max_batch_for_memory(spec, memory_bytes=memory, context=context, new_tokens=new_tokens)
    assert max_batch_for_memory(spec, memory_bytes=bigger, context=context, new_tokens=new_tokens) >= found
    if found > 0:
        assert inference_memory(spec, batch=found, context=context, new_tokens=new_tokens).total_upper_bytes <= memory
    if 0 < found < MAX_BATCH:
        assert inference_memory(spec, batch=found + 1, context=context,
                                new_tokens=new_tokens).total_upper_bytes > memory


@PROPERTY
@given(config=llama_configs(), setup=inference_settings(), extra=st.integers(1, 4096))
def test_inference_peak_never_decreases_with_context_or_batch(config: dict[str, Any], setup: dict[str, Any],
                                                              extra: int) -> None:
    spec = _spec(config)
    base = inference_memory(spec, **setup).peak_allocated_bytes
    assert inference_memory(spec, **{**setup, "context": setup["context"] + extra}).peak_allocated_bytes >= base
    assert inference_memory(spec, **{**setup, "batch": setup["batch"] + extra}).peak_allocated_bytes >= base


def test_eager_scores_cost_more_in_bf16_than_fp32() -> None:
    """transformers' eager attention calls softmax(scores, dtype=float32): a bf16 model first
    casts its scores to fp32 (a copy) and keeps the bf16 input alive, 2 + 4 + 4 = 10 bytes per
    score at that moment; an fp32 model's cast is a no-op, 4 + 4 = 8 bytes. On a model whose
    weights are tiny next to its scores, bf16 weights therefore need more memory."""
    spec = _spec({"model_type": "llama", "hidden_size": 16, "num_hidden_layers": 1,
                  "num_attention_heads": 2, "num_key_value_heads": 1, "intermediate_size": 8,
                  "vocab_size": 16})
    setup = {"kv_cache": "fp32", "batch": 1, "context": 1024, "attention": "eager"}
    fp32 = inference_memory(spec, weights="fp32", **setup).peak_allocated_bytes
    bf16 = inference_memory(spec, weights="bf16", **setup).peak_allocated_bytes
    heads, scores = 2, 1024 * 1024
    # Scores: +2 bytes per score (10 vs 8) over heads x seq^2; the (1, 1, seq, seq) mask is
    # in the model dtype: -2 bytes per entry. Net (heads - 1) x seq^2 x 2 bytes, less the
    # small savings on weights and activations.
    assert bf16 - fp32 > (heads - 1) * scores * 2 * 0.8


@pytest.mark.parametrize("allocator", ["default", "expandable_segments"])
def test_every_estimate_names_its_overhead_assumption(allocator: str) -> None:
    # The pages' tables quote MemoryEstimate.overhead_assumption: it must be the overhead sentence of
    # calculators.memory.overhead, for training, inference and vision alike, whatever the allocator.
    from calculators.memory.overhead import overhead_assumptions
    from calculators.memory.vision import vision_training_memory

    spec = get_model("llama-3.2-1b")
    estimates = (training_memory(spec, allocator=allocator), inference_memory(spec, allocator=allocator))
    for estimate in estimates:
        assert estimate.overhead_assumption == overhead_assumptions(allocator)[0]
    assert vision_training_memory("resnet-50").overhead_assumption == overhead_assumptions()[0]
