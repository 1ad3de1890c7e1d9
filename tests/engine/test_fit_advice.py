"""What would make it fit, the best that fits, and the reverse question (#27 item 4).

Oracles: the component calculators. A change's verdict and margin are those of the changed job's own
estimate (:func:`calculators.memory.inference.inference_memory`, :func:`calculators.memory.training.training_memory`)
against the GPU's usable memory; its speed cost is the ratio of the speed engines' own answers
(:func:`calculators.performance.inference_speed.decode_step`, :func:`calculators.performance.training_time.training_time`)
for the changed and the original job; a "largest" value fits and one more does not (brute force next to it);
a reverse-question row is what the ``fit`` calculator answers for that model and job.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from calculators import cli
from calculators.catalog.gpus import get_gpu
from calculators.catalog.models import get_model
from calculators.catalog.usable_memory import usable_memory_bytes
from calculators.dtype_support import runs_natively
from calculators.fit import fit_inference, fit_training, fit_verdict, share_verdict, training_placement
from calculators.fit.advice import NO_OFFLOAD, FitChange, inference_fit_advice, training_fit_advice
from calculators.fit.best import WEIGHTS_BY_QUALITY, best_inference_fit, best_training_fit
from calculators.fit.reverse import models_for_gpu, training_job
from calculators.jobs.registry import get_calculator
from calculators.memory.inference import inference_memory
from calculators.memory.training import training_memory
from calculators.performance.fit_cost import cost_text, inference_costs, training_costs
from calculators.performance.inference_speed import decode_step
from calculators.performance.training_time import training_time

#: Inference jobs that do not fit (or are tight): model, GPU, GPU count, settings.
INFERENCE_JOBS: list[tuple[str, str, int, dict[str, Any]]] = [
    ("llama-3.1-70b", "h100-sxm", 1, {"context": 8192}),
    ("llama-3.1-70b", "rtx-4090", 2, {"weights": "int4", "context": 8192}),  # the issue's tight job
    ("llama-3-8b", "rtx-4090", 1, {"context": 32768, "batch": 8}),
    ("mixtral-8x7b", "a100-80gb-sxm", 1, {"context": 4096, "batch": 4}),
]
#: Training steps that do not fit (or are tight).
TRAINING_JOBS: list[tuple[str, str, dict[str, Any]]] = [
    ("qwen2.5-7b", "rtx-4090", {"method": "qlora", "seq": 2048}),  # the issue's "-0.0" QLoRA job
    ("llama-3-8b", "h100-sxm", {"method": "full", "batch": 4}),
    ("llama-3-8b", "h100-sxm", {"method": "full", "gpus": 8, "zero": 0}),
    ("llama-3-8b", "a100-40gb-sxm", {"method": "lora", "batch": 8, "seq": 4096}),
]


def _inference_oracle(spec: Any, gpu: Any, gpus: int, settings: dict[str, Any]) -> Any:
    return share_verdict(inference_memory(spec, **settings), gpu, gpus=gpus)


@pytest.mark.parametrize(("model", "gpu_id", "gpus", "settings"), INFERENCE_JOBS)
def test_every_inference_change_fits_with_the_margin_of_the_changed_job(model: str, gpu_id: str, gpus: int,
                                                                        settings: dict[str, Any]) -> None:
    spec, gpu = get_model(model), get_gpu(gpu_id)
    assert not _inference_oracle(spec, gpu, gpus, settings).fits
    advice = inference_fit_advice(spec, gpu, gpus=gpus, **settings)
    assert advice, "a job that does not fit gets at least one change"
    for change in advice:
        oracle = _inference_oracle(spec, gpu, change.gpus, {**settings, **{k: v for k, v in change.change.items()
                                                                          if k != "gpus"}})
        assert oracle.fits, change.label
        assert change.verdict.margin_bytes == oracle.margin_bytes == usable_memory_bytes(gpu) - oracle.total_bytes
        if "context" in change.change:  # the longest prompt: one more token does not fit
            assert not _inference_oracle(spec, gpu, gpus, {**settings, "context": change.change["context"] + 1}).fits


def _training_oracle(spec: Any, gpu: Any, settings: dict[str, Any]) -> Any:
    return fit_verdict(training_memory(spec, **settings), gpu)


@pytest.mark.parametrize(("model", "gpu_id", "settings"), TRAINING_JOBS)
def test_every_training_change_fits_with_the_margin_of_the_changed_job(model: str, gpu_id: str,
                                                                       settings: dict[str, Any]) -> None:
    spec, gpu = get_model(model), get_gpu(gpu_id)
    assert not _training_oracle(spec, gpu, settings).fits
    advice = training_fit_advice(spec, gpu, **settings)
    assert advice
    labels = [change.label for change in advice]
    assert not any("offload" in label.lower() for label in labels)  # not modelled: never offered (NO_OFFLOAD)
    assert "offload" in NO_OFFLOAD
    for change in advice:
        changed = {**settings, **change.change}
        oracle = _training_oracle(spec, gpu, changed)
        assert oracle.fits and change.verdict == oracle, change.label
        assert change.gpus == int(changed.get("gpus", 1))
        if change.label.startswith("LoRA"):  # the margin after LoRA is training_memory's for the LoRA job
            lora = training_memory(spec, **{**settings, "method": "lora"})
            assert change.verdict.margin_bytes == usable_memory_bytes(gpu) - lora.total_bytes
        if change.label.startswith("micro-batch 1"):  # the same tokens per optimizer step
            assert changed["batch"] * changed["grad_accumulation"] == settings.get("batch", 1) * settings.get(
                "grad_accumulation", 1)
        if "seq" in change.change:
            assert not _training_oracle(spec, gpu, {**settings, "seq": change.change["seq"] + 1}).fits
        if "GPUs, data parallel" in change.label and "checkpointing" not in change.label:
            # the count the headline gives: training_placement's fewest GPUs that fit
            assert change.gpus == training_placement(spec, gpu, **settings).fewest_fits


def test_the_issues_qlora_job_is_told_to_checkpoint() -> None:
    """#27: 'Can I fine-tune Qwen2.5-7B with QLoRA on one 24 GB card?' answered 'does not fit, -0.0' with no hint."""
    spec, gpu = get_model("qwen2.5-7b"), get_gpu("rtx-4090")
    labels = [change.label for change in training_fit_advice(spec, gpu, method="qlora")]
    assert labels[0] == "gradient checkpointing"


def test_an_eight_bit_optimizer_is_offered_where_it_fits_and_its_speed_is_not_guessed() -> None:
    """8-bit AdamW keeps 2 x (1 + 4/256) = 2.03 bytes of moments a parameter instead of AdamW's 8 (fp32 moments of
    fp32 master weights) and has no foreach temporary (4 more): Qwen2.5 1.5B fully fine-tuned needs about
    1.54e9 x 20 = 31 GB with AdamW, above a 24 GB card, and about 10 bytes a parameter less with it."""
    spec, gpu = get_model("qwen2.5-1.5b"), get_gpu("rtx-4090")
    settings = {"method": "full", "seq": 512, "grad_checkpointing": True}
    advice = training_fit_advice(spec, gpu, **settings)
    eight = [change for change in advice if change.change.get("optimizer") == "adamw-8bit"]
    assert eight, [change.label for change in advice]
    saved = (training_memory(spec, **settings).total_bytes - training_memory(
        spec, **{**settings, "optimizer": "adamw-8bit"}).total_bytes) / spec.parameters
    assert 9 < saved < 10.5, saved  # 8 - 2.03 + 4 = 9.97 where the optimizer step is the peak
    (_, cost), = training_costs(spec, gpu, eight, **settings)
    assert cost.changed is None  # the training-time engine has no optimizer step
    # The reader sees the calculator's title and the setting in words, not a function or class name.
    assert cost_text(cost, original_verdict="does not fit") == (
        "speed not modelled: the training time calculator does not model the optimizer setting")


def test_a_change_the_speed_calculator_does_not_model_is_named_in_words() -> None:
    # Eager attention and an image per request change the memory, not the inference speed model's inputs
    # (SpeedInputs has neither): the reason names the calculator by its title and the settings as words.
    spec, gpu = get_model("llama-3-8b"), get_gpu("h100-sxm")
    change = FitChange("eager attention, one image", {"attention": "eager", "images": 1}, 1,
                       fit_verdict(inference_memory(spec), gpu))
    (_, cost), = inference_costs(spec, gpu, [change])
    assert cost.changed is None and cost.original is not None
    assert cost.reason == "the inference speed calculator does not model the attention and images settings"
    assert "SpeedInputs" not in cost_text(cost, original_verdict="fits")


def test_speed_costs_are_the_speed_engines_ratios() -> None:
    """Each ratio is the engines' own: checkpointing costs about one more forward (6N -> 8N executed FLOPs: near
    3/4 when compute-bound), int4 weights read a quarter of bf16's bytes per decode step (faster, memory-bound),
    and a second GPU in tensor parallel adds its bandwidth less the all-reduces."""
    spec, gpu = get_model("qwen2.5-7b"), get_gpu("rtx-4090")
    settings = {"method": "qlora", "seq": 2048}
    for change, cost in training_costs(spec, gpu, training_fit_advice(spec, gpu, **settings), **settings):
        base = training_time(spec, gpu, tokens=10**9, goodput=1, check_memory=False, **settings).tokens_per_s
        timed = {k: v for k, v in {**settings, **change.change}.items() if k != "base_dtype"}
        ratio = training_time(spec, gpu, tokens=10**9, goodput=1, check_memory=False, **timed).tokens_per_s / base
        assert cost.ratio == pytest.approx(ratio, rel=1e-12), change.label
        if change.label == "gradient checkpointing":
            assert 0.6 < ratio < 0.85
    spec, gpu = get_model("llama-3.1-70b"), get_gpu("h100-sxm")
    advice = inference_fit_advice(spec, gpu, context=8192)
    costs = {change.label: cost for change, cost in inference_costs(spec, gpu, advice, context=8192)}
    bf16 = decode_step(spec, gpu, context=8192).aggregate_tokens_per_s
    int4 = decode_step(spec, gpu, context=8192, weights="int4").aggregate_tokens_per_s
    two = decode_step(spec, gpu, context=8192, gpus=2).aggregate_tokens_per_s
    assert costs["int4 weights"].ratio == pytest.approx(int4 / bf16, rel=1e-12) and int4 / bf16 > 2
    assert costs["2 GPUs, tensor or pipeline parallel"].ratio == pytest.approx(two / bf16, rel=1e-12)
    assert 1 < two / bf16 <= 2


def test_the_best_that_fits_fits_and_the_next_does_not() -> None:
    spec, gpu = get_model("llama-3-8b"), get_gpu("rtx-4090")
    settings: dict[str, Any] = {"context": 8192}
    prompt, batch, weights = best_inference_fit(spec, gpu, **settings)
    assert prompt.verdict is not None and batch.verdict is not None and weights.verdict is not None
    assert _inference_oracle(spec, gpu, 1, {**settings, "context": prompt.value}).fits
    assert not _inference_oracle(spec, gpu, 1, {**settings, "context": int(prompt.value) + 1}).fits
    assert not _inference_oracle(spec, gpu, 1, {**settings, "batch": int(batch.value) + 1}).fits
    assert weights.value == "bf16"  # an 8B model in bf16 (15 GiB) fits 24 GB at 8k
    big = get_model("llama-3.1-70b")
    *_, best = best_inference_fit(big, get_gpu("h100-sxm"), context=8192)
    order = WEIGHTS_BY_QUALITY
    assert best.value == "fp8"  # 70 GB of bf16 does not fit 80 GB; fp8 (1 byte a weight) does
    for better in order[:order.index(str(best.value))]:
        assert not _inference_oracle(big, get_gpu("h100-sxm"), 1, {"context": 8192, "weights": better}).fits
    seq, micro, method = best_training_fit(spec, get_gpu("h100-sxm"), method="full", gpus=8, zero=3)
    assert method.value == "full" and seq.verdict is not None
    assert not _training_oracle(spec, get_gpu("h100-sxm"), {"method": "full", "gpus": 8, "zero": 3,
                                                             "seq": int(seq.value) + 1}).fits


REVERSE_MODELS = ("llama-3-8b", "llama-3.1-70b", "mixtral-8x7b", "qwen2.5-7b", "gemma-3-270m")


@pytest.mark.parametrize(("gpu_id", "gpus"), [("rtx-4090", 1), ("rtx-4090", 2), ("h100-sxm", 1)])
def test_the_reverse_question_gives_fits_own_verdict(gpu_id: str, gpus: int) -> None:
    """Each row's verdicts are :func:`calculators.fit_inference`'s and :func:`calculators.fit_training`'s (what the
    ``fit`` calculator answers on the reader's GPUs) for the same job; the best format is the first that fits."""
    gpu = get_gpu(gpu_id)
    rows = {row.model_id: row for row in models_for_gpu(gpu, gpus=gpus, context=8192, seq=2048)}
    assert list(rows.values()) == sorted(rows.values(), key=lambda row: (row.parameters, row.name))
    for model in REVERSE_MODELS:
        row, spec = rows[model], get_model(model)
        inferred = fit_inference(spec, gpu, gpus=gpus, weights=row.weights or "int4", context=8192).verdict
        assert inferred == row.inference, model
        tried = [form for form in WEIGHTS_BY_QUALITY if form != "fp8" or runs_natively(gpu, "fp8")]
        for better in tried[:tried.index(row.weights or "int4")]:
            assert not fit_inference(spec, gpu, gpus=gpus, weights=better, context=8192).fits, (model, better)
        job = training_job(seq=2048, gpus=gpus, grad_checkpointing=True)
        assert fit_training(spec, gpu, method="lora", **job).verdict == row.lora, model
        assert fit_training(spec, gpu, method="qlora", **job).verdict == row.qlora, model


def test_the_reverse_question_agrees_with_the_fit_calculator() -> None:
    """The issue's Llama 3.1 70B on 2x RTX 4090: the models-for row is what the fit calculator's answer says."""
    row = next(row for row in models_for_gpu(get_gpu("rtx-4090"), gpus=2, context=8192)
               if row.model_id == "llama-3.1-70b")
    answer = get_calculator("fit").answer({"model": "llama-3.1-70b", "gpu": "rtx-4090", "gpus": "2",
                                           "job": "inference", "context": "8192",
                                           "weights": row.weights or "int4"}).data["answer"]
    assert (answer["verdict"], answer["margin_bytes"]) == (row.inference.verdict, row.inference.margin_bytes)
    assert row.weights == "" and row.inference.verdict == "tight"  # int4 is tight on two (the issue's answer)


def test_mlhw_models_for_prints_the_calculators_answer() -> None:
    data, text = cli.run(["models-for", "--gpu", "rtx-4090", "--gpus", "1", "--context", "8192", "--json"])
    answer = get_calculator("models-for").answer({"gpu": "rtx-4090", "gpus": "1", "context": "8192"})
    assert json.loads(json.dumps(data)) == json.loads(json.dumps(answer.data))
    counts = data["fit_counts"]
    assert counts["inference"] == sum(1 for row in data["models"] if row["inference"]["verdict"] == "fits")
    _, text = cli.run(["models-for", "--gpu", "rtx-4090", "--context", "8192"])
    assert text.startswith(f"On 1x GeForce RTX 4090: {counts['inference']} of {len(data['models'])} models fit "
                           "for inference at 8,192 tokens")
    off, _ = cli.run(["models-for", "--gpu", "rtx-4090", "--no-grad-checkpointing", "--json"])
    assert off["grad_checkpointing"] is False and off["fit_counts"]["lora"] <= counts["lora"]


@pytest.mark.parametrize(("model", "gpu_id", "gpus"), [("gpt-oss-20b", "h100-sxm", 1), ("gpt-oss-20b", "rtx-4090", 1),
                                                       ("deepseek-v3", "h200", 8), ("deepseek-v3", "h100-sxm", 8),
                                                       ("minimax-m2", "h100-sxm", 4)])
def test_a_quantised_checkpoint_is_never_advised_wider_weights(model: str, gpu_id: str, gpus: int) -> None:
    """gpt-oss stores its experts in MXFP4, DeepSeek-V3 and MiniMax-M2 their linear layers in FP8 (their
    config.json quantization_config): bf16 or fp8 made from those files is an upcast, more memory for no precision
    the file holds. The best format is the checkpoint's own when it fits, else one of fewer bits (int4 from FP8,
    none smaller than MXFP4), and the fit face's "best weights" is the models-for row's (one job, one answer)."""
    spec, gpu = get_model(model), get_gpu(gpu_id)
    row = next(row for row in models_for_gpu(gpu, gpus=gpus, context=8192) if row.model_id == model)
    *_, best = best_inference_fit(spec, gpu, gpus=gpus, context=8192)
    stored = fit_inference(spec, gpu, gpus=gpus, weights="auto", context=8192)
    assert row.weights in ("auto", "int4", "") and not (model.startswith("gpt-oss") and row.weights == "int4")
    assert (row.weights == "auto") == stored.fits, (model, gpu_id)
    assert best.change == ({"weights": row.weights} if row.weights else {})
    assert best.value == (row.weights_name if row.weights else "")
    if row.weights == "auto":
        assert row.inference == stored.verdict and str(best.value).endswith(" as stored")
    if not row.weights:
        assert row.weights_name == ("mxfp4 as stored" if model.startswith("gpt-oss") else "int4")
