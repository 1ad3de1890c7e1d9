"""Weights ``"auto"`` is the checkpoint's own format: resolved against a model, refused where no model is known.

Found in review (main a895090): ``InferenceRequest.of`` and ``SpeedSetup.of`` know no model, yet took ``"auto"``
(their default) and read it as bf16; the plan and speed faces had sized their advice that way for MXFP4 and FP8
checkpoints. The rule (HELPER_BRIEF "never a silent guess"): refused with the field named, or resolved.

Expected values: Llama 3 8B's config.json says ``torch_dtype: bfloat16`` and has no ``quantization_config``, so its
checkpoint format is bf16 (the catalog record, as read). gpt-oss-20b stores its experts in MXFP4: 24 layers x 32
experts, each gate_up 5760 x 2880 and down 2880 x 2880 as 4-bit E2M1 values with one E8M0 byte per 32 inputs
(24,883,200 weights in 13,219,200 bytes); its other parameters in bf16, of 20,914,757,184 in all (the published count,
which transformers 5.23 builds: tests/data/model_counts_transformers.json).
"""

from __future__ import annotations

import contextlib
import io
import json
from collections.abc import Callable
from typing import Any

import pytest

from calculators.catalog.gpus import get_gpu
from calculators.catalog.models import get_model
from calculators.cli import main
from calculators.errors import InputError
from calculators.memory.inference import (
    InferenceRequest,
    inference_memory,
    max_batch_for_memory,
    max_context_for_memory,
)
from calculators.memory.weight_formats import stored_format, weight_format
from calculators.memory.weights import weight_bytes
from calculators.model import ModelSpec
from calculators.performance.inference_speed import decode_step, inference_speed, prefill
from calculators.performance.served import ServedModel
from calculators.performance.speed_setup import SpeedSetup
from calculators.recommend import Workload, recommend
from calculators.serving import chunked_prefill
from calculators.widgets.api import compute_json

GIB = 2**30
GPT_OSS_20B_PARAMETERS = 20_914_757_184
GPT_OSS_20B_EXPERT_WEIGHTS = 24 * 32 * (5760 * 2880 + 2880 * 2880)
GPT_OSS_20B_BYTES = 24 * 32 * 13_219_200 + (GPT_OSS_20B_PARAMETERS - GPT_OSS_20B_EXPERT_WEIGHTS) * 2


# ------------------------------------------------------------------ no model: refused, naming the field
@pytest.mark.parametrize("build", [
    pytest.param(lambda: InferenceRequest.of(), id="InferenceRequest.of-default"),
    pytest.param(lambda: InferenceRequest.of(weights="auto", batch=4, context=8192), id="InferenceRequest.of-auto"),
    pytest.param(lambda: SpeedSetup.of(), id="SpeedSetup.of-default"),
    pytest.param(lambda: SpeedSetup.of(weights="auto", engine="vllm", batch=8, gpus=2), id="SpeedSetup.of-auto"),
    pytest.param(lambda: weight_format("auto"), id="weight_format"),
    pytest.param(lambda: weight_format("auto", strict=True), id="weight_format-strict"),
])
def test_auto_without_a_model_is_refused_naming_the_weights(build: Callable[[], object]) -> None:
    with pytest.raises(InputError) as error:
        build()
    assert error.value.field == "weights" and error.value.value == "auto"
    assert str(error.value).startswith("weights: got 'auto'; expected a format such as bf16, fp8, int4 or mxfp4 "
                                       "('auto' needs a model to read its checkpoint format from"), str(error.value)


def test_an_explicit_format_without_a_model_is_taken_as_given() -> None:
    # The refusal is of "auto" alone: a format named needs no model.
    assert InferenceRequest.of(weights="bf16").format.id == "bf16"
    assert SpeedSetup.of(weights="fp8").format.id == "fp8"
    assert SpeedSetup.of(weights="mxfp4").format.id == "mxfp4"


# ------------------------------------------------------------------ with a model: the checkpoint's format
#: Each public entry that takes weights with a model, reduced to the numbers it gives.
ENTRIES: dict[str, Callable[[ModelSpec, Any], object]] = {
    "inference_memory": lambda spec, w: inference_memory(spec, weights=w, context=8192, batch=2).breakdown,
    "weight_bytes": lambda spec, w: weight_bytes(spec, dtype=w),
    "max_batch_for_memory": lambda spec, w: max_batch_for_memory(spec, memory_bytes=80 * GIB, context=8192,
                                                                 weights=w),
    "max_context_for_memory": lambda spec, w: max_context_for_memory(spec, memory_bytes=80 * GIB, weights=w),
    "chunked_prefill": lambda spec, w: chunked_prefill(spec, context=8192, chunk=2048, weights=w).chunked_bytes,
    "decode_step": lambda spec, w: decode_step(spec, get_gpu("h100-sxm"), weights=w, context=8192).time_s,
    "prefill": lambda spec, w: prefill(spec, get_gpu("h100-sxm"), weights=w, context=8192).time_s,
    "inference_speed": lambda spec, w: inference_speed(spec, get_gpu("h100-sxm"), weights=w, engine="vllm",
                                                       context=2048, new_tokens=64).generation_time_s,
    "ServedModel.of": lambda spec, w: ServedModel.of(model=spec, gpu="h100-sxm", weights=w, engine="vllm").setup,
}


@pytest.mark.parametrize("entry", ENTRIES)
@pytest.mark.parametrize(("model", "explicit"), [
    pytest.param("llama-3-8b", lambda spec: "bf16", id="llama-3-8b-bf16"),
    pytest.param("gpt-oss-20b", stored_format, id="gpt-oss-20b-mxfp4-experts"),
])
def test_auto_with_a_model_is_the_checkpoints_format(entry: str, model: str,
                                                     explicit: Callable[[ModelSpec], Any]) -> None:
    spec = get_model(model)
    assert ENTRIES[entry](spec, "auto") == ENTRIES[entry](spec, explicit(spec))


def test_the_checkpoints_format_is_not_bf16_where_it_is_quantised() -> None:
    # The bug this guards against: gpt-oss-20b's "auto" sized as 2 bytes per parameter (41.8 GB, not 13.8 GB).
    spec = get_model("gpt-oss-20b")
    assert weight_bytes(spec, dtype="auto") == GPT_OSS_20B_BYTES
    assert inference_memory(spec, context=8192).breakdown["weights"] == GPT_OSS_20B_BYTES
    assert weight_bytes(spec, dtype="bf16") == 2 * GPT_OSS_20B_PARAMETERS
    setup = ServedModel.of(model=spec, gpu="h100-sxm").setup
    assert setup.format.id == "mxfp4" and setup.format.checkpoint is not None


def test_recommend_serves_the_checkpoints_format() -> None:
    # The workload's method "auto" (its default for serving) is resolved against the model, not read as bf16.
    auto = recommend(Workload(model="gpt-oss-20b", job="serve", context=8192))
    stated = recommend(Workload(model="llama-3-8b", job="serve", context=8192, method="bf16"))
    assert auto.method == "mxfp4" and stated.method == "bf16"
    assert recommend(Workload(model="llama-3-8b", job="serve", context=8192)) == stated


# ------------------------------------------------------------------ the faces: command line and widget
def _cli(argv: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(argv)
    return code, out.getvalue(), err.getvalue()


@pytest.mark.parametrize("argv", [
    ["infer", "--model", "llama-3-8b", "--context", "8192"],
    ["speed", "--model", "llama-3-8b", "--gpu", "h100-sxm", "--engine", "vllm"],
    ["fit", "--model", "llama-3-8b", "--gpu", "rtx-4090", "infer"],
    ["plan", "--model", "llama-3-8b", "--gpu", "rtx-4090"],
    ["serve-load", "--model", "llama-3-8b", "--gpu", "h100-sxm", "--concurrency", "8"],
])
def test_cli_auto_is_the_checkpoints_format(argv: list[str]) -> None:
    auto, stated = _cli([*argv, "--weights", "auto", "--json"]), _cli([*argv, "--weights", "bf16", "--json"])
    assert auto[0] == stated[0] == 0, (auto[2], stated[2])
    assert json.loads(auto[1]) == json.loads(stated[1])


def test_cli_sizes_a_quantised_checkpoint_as_stored() -> None:
    code, out, err = _cli(["infer", "--model", "gpt-oss-20b", "--context", "8192", "--json"])
    assert code == 0, err
    assert json.loads(out)["breakdown"]["weights"] == GPT_OSS_20B_BYTES


@pytest.mark.parametrize("argv", [
    # Every face that takes weights needs a model: "auto" never reaches a check without one.
    ["speed", "--gpu", "h100-sxm", "--weights", "auto"],
    ["infer", "--weights", "auto"],
    # A model whose quantization_config this package cannot read: "auto" has nothing to resolve to.
    ["infer", "--model", json.dumps({"model_type": "llama", "hidden_size": 64, "num_hidden_layers": 2,
                                     "num_attention_heads": 8, "num_key_value_heads": 2, "intermediate_size": 128,
                                     "vocab_size": 100, "quantization_config": {"quant_method": "hqq"}}),
     "--weights", "auto"],
])
def test_cli_refuses_auto_it_cannot_resolve_in_one_line(argv: list[str]) -> None:
    code, out, err = _cli(argv)
    assert code == 2 and not out
    assert err.startswith("mlhw: error: ") and len(err.splitlines()) == 1 and "Traceback" not in err, err
    assert "--model" in err or "instead of auto" in err, err


HQQ_CONFIG = {"model_type": "llama", "hidden_size": 64, "num_hidden_layers": 2, "num_attention_heads": 8,
              "num_key_value_heads": 2, "intermediate_size": 128, "vocab_size": 100,
              "quantization_config": {"quant_method": "hqq"}}


@pytest.mark.parametrize("name", ["inference-memory", "inference-speed", "fit", "plan", "serving-load"])
def test_widget_auto_is_resolved_or_refused_by_field(name: str) -> None:
    def reply(values: dict[str, str]) -> dict[str, Any]:
        answer: dict[str, Any] = json.loads(compute_json(name, json.dumps(values)))
        return answer

    # With a catalog model, "auto" answers as the checkpoint's format does: the whole reply, but for the links to
    # the other calculators, which carry the setting as the reader gave it.
    auto, stated = reply({"model": "llama-3-8b", "weights": "auto"}), reply({"model": "llama-3-8b", "weights": "bf16"})
    assert auto["ok"] is True and stated["ok"] is True
    assert auto["html"].replace(".weights=auto&", ".weights=bf16&") == stated["html"]
    # With a config whose quantisation cannot be read, "auto" is refused by the field that holds it, no crash.
    refused = reply({"model": "custom", "config": json.dumps(HQQ_CONFIG), "weights": "auto"})
    assert refused["ok"] is False and refused["field"] == "config", refused
    assert "instead of auto" in refused["message"]
    assert reply({"model": "custom", "config": json.dumps(HQQ_CONFIG), "weights": "bf16"})["ok"] is True
