"""Public functions that take a model, GPU, link or estimate refuse None and wrong types with the documented error.

Issue #17: "every public function raises only the documented error type" (InputError, a
CalculatorError); before, these raised AttributeError or TypeError on None.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from calculators.catalog.models import get_model
from calculators.catalog.usable_memory import apple_working_set_bytes, usable_memory_bytes
from calculators.errors import CalculatorError
from calculators.fit import fit_verdict, footprint_on, split_inference_footprint, verdict_for
from calculators.memory.inference import inference_memory
from calculators.memory.kernels import layer_attention_path, needs_explicit_mask
from calculators.memory.overhead import allocator_reserve_bytes, fit_margin_bytes
from calculators.parallel import measured, step, tensor
from calculators import model_flops as flops
from calculators.performance import batching, inference_speed, training_time

SPEC = get_model("llama-3-8b")
CALLS: dict[str, Callable[[], Any]] = {
    "matmul_parameters(None)": lambda: flops.matmul_parameters(None),  # type: ignore[arg-type]
    "lm_head_parameters(None)": lambda: flops.lm_head_parameters(None),  # type: ignore[arg-type]
    "attended_tokens(None)": lambda: flops.attended_tokens(None, context=8),  # type: ignore[arg-type]
    "causal_attended_pairs(None)": lambda: flops.causal_attended_pairs(None, tokens=8),  # type: ignore[arg-type]
    "decode_step(None, gpu)": lambda: inference_speed.decode_step(None, "h100-sxm"),  # type: ignore[arg-type]
    "decode_step(spec, None)": lambda: inference_speed.decode_step(SPEC, None),  # type: ignore[arg-type]
    "prefill(None, None)": lambda: inference_speed.prefill(None, None),  # type: ignore[arg-type]
    "default_mfu(None)": lambda: training_time.default_mfu(None),  # type: ignore[arg-type]
    "static_utilisation(None)": lambda: batching.static_utilisation(None),  # type: ignore[arg-type]
    "batching_utilisation(iterator)": lambda: batching.batching_utilisation(iter([1, 2])),  # type: ignore[arg-type]
    "link_efficiency(None)": lambda: tensor.link_efficiency(None),  # type: ignore[arg-type]
    "latency_per_ring_step_s(3)": lambda: tensor.latency_per_ring_step_s(3),  # type: ignore[arg-type]
    "default_interconnect(None)": lambda: step.default_interconnect(None),  # type: ignore[arg-type]
    "model_bus_bandwidth_bytes_per_s(None)": lambda: measured.model_bus_bandwidth_bytes_per_s(None),  # type: ignore[arg-type]
    "fit_verdict(None, gpu)": lambda: fit_verdict(None, "h100-sxm"),  # type: ignore[arg-type]
    "fit_verdict(estimate, 3)": lambda: fit_verdict(inference_memory(SPEC), 3),  # type: ignore[arg-type]
    "footprint_on(estimate, None)": lambda: footprint_on(inference_memory(SPEC), None),  # type: ignore[arg-type]
    "split_inference_footprint(estimate, 0)": lambda: split_inference_footprint(inference_memory(SPEC), 0),
    "verdict_for(-1, 0, 1)": lambda: verdict_for(-1, 0, 1),
    "verdict_for(1, 0, nan)": lambda: verdict_for(1, 0, float("nan")),  # type: ignore[arg-type]
    "usable_memory_bytes(None)": lambda: usable_memory_bytes(None),  # type: ignore[arg-type]
    "apple_working_set_bytes(-1)": lambda: apple_working_set_bytes(-1),
    "layer_attention_path(None)": lambda: layer_attention_path(None, attention="sdpa", compute_bytes=2, seq=8),  # type: ignore[arg-type]
    "layer_attention_path(device=tpu)": lambda: layer_attention_path(SPEC, attention="sdpa", compute_bytes=2, seq=8,
                                                                   device="tpu"),
    "needs_explicit_mask(None)": lambda: needs_explicit_mask(None, kv_length=8),  # type: ignore[arg-type]
    "allocator_reserve_bytes(-1)": lambda: allocator_reserve_bytes(transient_block_bytes=-1, recompute=False),
    "allocator_reserve_bytes(allocator=x)": lambda: allocator_reserve_bytes(transient_block_bytes=1, recompute=False,
                                                                          allocator="x"),
    "fit_margin_bytes(None)": lambda: fit_margin_bytes(transient_block_bytes=None),  # type: ignore[arg-type]
}


@pytest.mark.parametrize("name", list(CALLS))
def test_bad_records_raise_the_documented_error(name: str) -> None:
    with pytest.raises(CalculatorError) as raised:
        CALLS[name]()
    # The message names the argument, as every InputError does ("field: got ...; expected ...").
    assert ": got " in str(raised.value)
