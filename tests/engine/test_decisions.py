"""Decisions a reader can act on (issue #15, engine side): dtype support per GPU, a recommendation
ranked among configurations that fit with margin and priced from offers that exist, and your own
hardware (a custom GPU, a Mac by its memory) giving the answers a catalog GPU with the same numbers gives.
"""

from __future__ import annotations

import json

import pytest

from calculators import cli
from calculators.catalog.custom_gpu import CustomGPU
from calculators.catalog.gpus import all_gpus, get_gpu
from calculators.catalog.models import get_model
from calculators.catalog.prices import configuration_price, offers_for
from calculators.catalog.usable_memory import usable_memory_bytes
from calculators.dtype_support import UnsupportedFormatError, native_formats, runs_natively, serving_notes
from calculators.errors import InputError
from calculators.fit import fit_inference, fit_training
from calculators.inputs.gpu import resolve_gpu
from calculators.memory.inference import inference_memory
from calculators.performance.inference_speed import decode_step, inference_speed
from calculators.performance.training_time import training_time
from calculators.recommend import Workload, recommend
from calculators.widgets.api import compute_json
from calculators.jobs.registry import get_calculator

GIB = 2**30

# --------------------------------------------------------------------- compute capability and formats
#: NVIDIA, "CUDA GPU Compute Capability" (https://developer.nvidia.com/cuda-gpus, read 2026-11-25): 12.0 RTX 5090
#: and RTX PRO 6000 Blackwell Workstation Edition, 10.0 B200, 9.0 H100 and H200, 8.9 L4, L40S and RTX 4090,
#: 8.6 RTX A6000 and RTX 3090; its 2022 edition (copied at cnblogs.com/nightnine/p/16591404.html): 8.0 A100,
#: 7.5 T4; the legacy page (developer.nvidia.com/cuda-legacy-gpus): 7.0 V100.
NVIDIA_PAGE = {"rtx-5090": "12.0", "rtx-pro-6000-blackwell": "12.0", "b200": "10.0", "h100-sxm": "9.0",
               "h100-pcie": "9.0", "h200": "9.0", "l4": "8.9", "l40s": "8.9", "rtx-4090": "8.9", "rtx-a6000": "8.6",
               "rtx-3090": "8.6", "a100-40gb-sxm": "8.0", "a100-80gb-sxm": "8.0", "t4": "7.5", "v100-sxm2-32gb": "7.0"}


@pytest.mark.parametrize("gpu_id, capability", sorted(NVIDIA_PAGE.items()))
def test_compute_capability_matches_nvidias_page(gpu_id: str, capability: str) -> None:
    gpu = get_gpu(gpu_id)
    assert gpu.compute_capability == capability
    assert "cuda" in gpu.source_of("compute_capability").url or "cnblogs" in gpu.source_of("compute_capability").url


def test_every_nvidia_gpu_has_a_capability_and_no_other_does() -> None:
    for gpu in all_gpus():
        assert (gpu.compute_capability is not None) == (gpu.vendor == "NVIDIA"), gpu.id


# Transformer Engine support matrix: "BF16 requires compute capability 8.0 or higher", FP8 (per tensor)
# "requires compute capability 8.9 or higher", NVFP4 on 10.0; TensorRT-RTX: FP4 GEMM on 12.0, not on 8.9.
@pytest.mark.parametrize("gpu_id, formats", [
    ("v100-sxm2-32gb", ("fp32", "fp16")),
    ("t4", ("fp32", "fp16")),
    ("a100-80gb-sxm", ("fp32", "fp16", "bf16")),
    ("rtx-3090", ("fp32", "fp16", "bf16")),
    ("rtx-4090", ("fp32", "fp16", "bf16", "fp8")),
    ("h100-sxm", ("fp32", "fp16", "bf16", "fp8")),
    ("b200", ("fp32", "fp16", "bf16", "fp8", "fp4")),
    ("rtx-5090", ("fp32", "fp16", "bf16", "fp8", "fp4")),
    ("mi300x", ("fp32", "fp16", "bf16", "fp8")),  # AMD MI300X data sheet prints BF16 and FP8 rates
    ("m4-max", ("fp32", "fp16", "bf16")),  # PyTorch #119641: MPS bf16 on macOS 14
])
def test_native_formats_follow_the_support_matrices(gpu_id: str, formats: tuple[str, ...]) -> None:
    assert native_formats(get_gpu(gpu_id)) == formats


def test_fp8_weights_on_an_a100_are_refused_with_the_reason_everywhere() -> None:
    spec = get_model("llama-3-8b")
    for call in (lambda: inference_speed(spec, resolve_gpu("a100-80gb-sxm"), weights="fp8"),
                 lambda: decode_step(spec, resolve_gpu("a100-80gb-sxm"), weights="fp8"),
                 lambda: fit_inference(spec, "a100-80gb-sxm", weights="fp8")):
        with pytest.raises(UnsupportedFormatError) as caught:
            call()
        assert caught.value.field == "weights" and "8.9" in str(caught.value) and "8.0" in str(caught.value)
    plan = recommend(Workload(model=spec, job="serve", method="fp8"))
    assert not any(row.gpu_id.startswith("a100") for row in plan.rows + plan.tight_rows)
    assert any(line.startswith("A100 SXM 80GB: cannot run") for line in plan.skipped)
    assert any(row.gpu_id == "h100-sxm" for row in plan.rows)  # Hopper runs fp8
    with pytest.raises(InputError, match="^--weights: .*compute capability 8.9"):
        cli.run(["speed", "--model", "llama-3-8b", "--gpu", "a100-80gb-sxm", "--weights", "fp8"])
    answer = json.loads(compute_json("inference-speed", json.dumps({"gpu": "a100-80gb-sxm", "weights": "fp8"})))
    assert answer["ok"] is False and answer["field"] == "weights"


def test_bf16_on_a_v100_is_refused_and_fp16_is_its_own_rate() -> None:
    # The V100's 125 TFLOPS is dense FP16 with FP32 accumulate (NVIDIA A100 whitepaper, Table 1); Volta has no BF16.
    spec = get_model("llama-3-8b")
    with pytest.raises(UnsupportedFormatError, match="fp16-mixed"):
        training_time(spec, resolve_gpu("v100-sxm2-32gb"), tokens=10**9, precision="bf16-mixed")
    run = training_time(spec, resolve_gpu("v100-sxm2-32gb"), tokens=10**9, precision="fp16-mixed")
    assert run.rate_flop_per_s == 125e12
    assert any("dense fp16-mixed rate" in line for line in run.assumptions)
    assert not any("bf16" in line for line in run.assumptions)
    with pytest.raises(UnsupportedFormatError):
        fit_inference(spec, "v100-sxm2-32gb", weights="bf16")


def test_weight_only_formats_run_everywhere_dequantised() -> None:
    spec = get_model("llama-3-8b")
    for gpu in ("v100-sxm2-32gb", "t4", "a100-80gb-sxm"):
        speed = inference_speed(spec, get_gpu(gpu), weights="int4", kv_cache="fp16")
        assert any("dequantised to 16 bits" in note for note in speed.notes)
    notes = serving_notes(get_gpu("a100-80gb-sxm"), weights="int8", kv_cache="fp8")
    assert any("storage only" in note for note in notes)  # fp8 KV cache on Ampere: memory saved, no fp8 compute


# ------------------------------------------------------------------------------ recommend
def test_qwen_32b_at_32k_for_8_users_ranks_only_what_fits_with_margin() -> None:
    # The example: 8 x RTX 3090 was ranked first with 0.9 GiB of headroom per GPU, priced as eight
    # single-GPU rentals. Now every ranked row fits with margin (its headroom covers the measured uncertainty),
    # tight rows are apart, and a row priced by multiplying a one-GPU rate says so; rows are sorted by the stated
    # objective, cost, whatever their price basis (#27: "cheapest first" must mean it).
    plan = recommend(Workload(model="qwen2.5-32b", job="serve", context=32768, batch=8))
    assert plan.rows and (plan.rows[0].gpu_id, plan.rows[0].count) != ("rtx-3090", 8)
    for row in plan.rows:
        assert row.verdict == "fits" and row.headroom_bytes >= row.uncertainty_bytes
        assert row.why
    assert all(row.verdict == "tight" and row.why.startswith("Not ranked") for row in plan.tight_rows)
    costs = [row.sort_cost for row in plan.rows if row.sort_cost is not None]
    assert costs == sorted(costs) and {row.price_basis for row in plan.rows} >= {"offer", "per-GPU assumption"}
    for row in plan.rows:
        exact = [offer for offer in offers_for(row.gpu_id) if offer.gpus == row.count]
        assert (row.price_basis == "offer") == bool(exact)
        if row.price_basis == "per-GPU assumption":
            assert any("per-GPU assumption" in note for note in row.notes) and "per-GPU assumption" in row.why
    assert plan.objective_text.startswith("Ranked by USD per million generated tokens")
    _, text = cli.run(["recommend", "--model", "qwen2.5-32b", "--context", "32768", "--batch", "8"])
    assert plan.objective_text in text and "tokens," not in text.splitlines()[1]  # no training tokens asked
    assert text.startswith(f"Cheapest that fits: {plan.rows[0].label}, ")


def test_an_8_gpu_node_is_priced_from_its_instance() -> None:
    # Lambda 8x H100 SXM at 8 x 3.99 and AWS p5.48xlarge at 55.04 USD/hour (price catalog, edition 2026-11):
    # the configuration's price is the median of the two instances, not 8 x a one-GPU price.
    price = configuration_price("h100-sxm", 8)
    assert price.basis == "offer" and price.usd_per_hour == pytest.approx((8 * 3.99 + 55.04) / 2)
    assert configuration_price("rtx-3090", 8).basis == "per-GPU assumption"


@pytest.mark.parametrize("objective", ["cost", "latency", "fewest-gpus"])
def test_objectives_order_the_ranked_rows(objective: str) -> None:
    plan = recommend(Workload(model="llama-3-70b", job="serve", method="int4", context=8192, batch=8,
                              objective=objective))
    rows = plan.rows
    if objective == "latency":
        speeds = [row.tokens_per_s_per_sequence or 0.0 for row in rows if row.meets_targets]
        assert speeds == sorted(speeds, reverse=True)
    elif objective == "fewest-gpus":
        assert [row.count for row in rows] == sorted(row.count for row in rows)
    assert plan.to_dict()["objective"] == objective
    with pytest.raises(InputError, match="^objective"):
        recommend(Workload(model="llama-3-8b", objective="cheapest"))


def test_the_recommend_widget_states_the_objective_and_hides_tokens_for_serving() -> None:
    calculator = get_calculator("recommend")
    html = calculator.run({"model": "qwen2.5-32b", "job": "serve", "context": "32768", "batch": "8"})
    assert "Ranked by USD per million generated tokens" in html and "per-GPU assumption" in html
    assert calculator.field("tokens").show_when == ("job", "finetune|train")
    from calculators.widgets.form import form_markup  # noqa: PLC0415 - the form of one calculator
    form = form_markup(calculator, {"job": "serve"}, prefix="t")
    tokens_wrapper = form[:form.index('name="tokens"')].rsplit("<div", 1)[1]
    assert "hidden" in tokens_wrapper


# ------------------------------------------------------------------------- your own hardware
def _as_custom(gpu_id: str) -> CustomGPU:
    gpu = get_gpu(gpu_id)

    def tflops(value: float | None) -> str:
        return "" if value is None else f"{value / 1e12!r}"

    parts = [f"memory_gb={gpu.memory_bytes / GIB!r}", f"bandwidth_gbps={gpu.memory_bandwidth_bytes_per_s / 1e9!r}",
             f"usable_gb={usable_memory_bytes(gpu) / GIB!r}", f"compute_capability={gpu.compute_capability}",
             f"pcie_gen={gpu.pcie_generation}"]
    for key, value in (("bf16", gpu.bf16_dense_flop_per_s), ("fp16", gpu.fp16_dense_flop_per_s),
                       ("fp8", gpu.fp8_dense_flop_per_s), ("fp32", gpu.fp32_flop_per_s)):
        if value is not None:
            parts.append(f"{key}_tflops={tflops(value)}")
    custom = resolve_gpu("custom:" + ",".join(parts))
    assert isinstance(custom, CustomGPU)
    return custom


@pytest.mark.parametrize("gpu_id", ["h100-sxm", "rtx-4090", "a100-80gb-sxm"])
def test_a_custom_gpu_with_a_catalog_gpus_numbers_gives_its_answers(gpu_id: str) -> None:
    spec, catalog, custom = get_model("llama-3-8b"), get_gpu(gpu_id), _as_custom(gpu_id)
    assert usable_memory_bytes(custom) == usable_memory_bytes(catalog)
    assert native_formats(custom) == native_formats(catalog)
    a, b = fit_inference(spec, catalog, context=8192, batch=4), fit_inference(spec, custom, context=8192, batch=4)
    assert (a.verdict, a.max_batch, a.max_context, a.gpus_needed) == (b.verdict, b.max_batch, b.max_context,
                                                                       b.gpus_needed)
    assert fit_training(spec, catalog, method="lora").verdict == fit_training(spec, custom, method="lora").verdict
    x, y = inference_speed(spec, catalog, context=4096, batch=8), inference_speed(spec, custom, context=4096, batch=8)
    assert (x.first_step.tokens_per_s, x.time_to_first_token_s, x.verdict) == pytest.approx(
        (y.first_step.tokens_per_s, y.time_to_first_token_s, y.verdict))
    s, t = (training_time(spec, g, tokens=10**9, method="lora", mfu=0.4) for g in (catalog, custom))
    assert (s.time_s, s.memory.verdict if s.memory else None) == (t.time_s, t.memory.verdict if t.memory else None)
    cli_catalog, _ = cli.run(["fit", "--model", "llama-3-8b", "--gpu", gpu_id, "infer", "--context", "8192"])
    cli_custom, _ = cli.run(["fit", "--model", "llama-3-8b", "--gpu", custom_text(gpu_id), "infer",
                             "--context", "8192"])
    assert cli_catalog["answer"]["verdict"] == cli_custom["answer"]["verdict"]
    assert cli_catalog["answer"]["margin_bytes"] == cli_custom["answer"]["margin_bytes"]


def custom_text(gpu_id: str) -> str:
    """The custom: description of a catalog GPU (as :func:`_as_custom` builds it)."""
    gpu = get_gpu(gpu_id)
    return (f"custom:memory_gb={gpu.memory_bytes / GIB!r},bandwidth_gbps={gpu.memory_bandwidth_bytes_per_s / 1e9!r},"
            f"usable_gb={usable_memory_bytes(gpu) / GIB!r},compute_capability={gpu.compute_capability},"
            f"pcie_gen={gpu.pcie_generation}")


def test_the_widgets_take_a_custom_gpu_and_a_mac() -> None:
    h100 = get_gpu("h100-sxm")
    values = {"model": "llama-3-8b", "gpu": "custom", "gpu_memory_gb": "80", "gpu_bandwidth_gbps": "3350",
              "gpu_bf16_tflops": "989.4", "gpu_compute_capability": "9.0",
              "gpu_usable_gb": repr(usable_memory_bytes(h100) / GIB)}
    custom = json.loads(compute_json("inference-speed", json.dumps(values)))
    catalog = json.loads(compute_json("inference-speed", json.dumps({"model": "llama-3-8b", "gpu": "h100-sxm"})))
    assert custom["ok"] and catalog["ok"]
    number = catalog["html"].split(" tokens/s per sequence")[0].rsplit(": ", 1)[1]
    assert f": {number} tokens/s per sequence" in custom["html"]
    bad = json.loads(compute_json("fit", json.dumps({**values, "gpu_bf16_tflops": "-1"})))
    assert bad["ok"] is False and bad["field"] == "gpu_bf16_tflops" and bad["message"].startswith("Dense BF16")
    mac = json.loads(compute_json("fit", json.dumps({"model": "llama-3-8b", "gpu": "mac", "mac_memory_gb": "64"})))
    assert mac["ok"] and "Mac with 64 GB unified memory" in mac["html"]


def test_a_mac_gets_the_wired_share_no_cuda_terms_and_the_mps_limits() -> None:
    # macOS's default GPU working set: 3/4 of unified memory above 36 GB, 2/3 at or below
    # (calculators.catalog.usable_memory.apple_working_set_bytes; 48 of 64 GiB, 16 of 24 GiB).
    mac = resolve_gpu("mac:64")
    assert usable_memory_bytes(mac) == 48 * GIB and usable_memory_bytes(resolve_gpu("mac:24")) == 16 * GIB
    spec = get_model("llama-3-8b")
    estimate = inference_memory(spec, context=8192)
    result = fit_inference(spec, mac, context=8192)
    assert result.verdict.total_bytes == estimate.total_bytes - 785 * 2**20 - 64 * 2**20  # no context, no workspaces
    notes = fit_training(spec, mac, method="qlora").notes
    assert any("FlashAttention" in note and "bitsandbytes" in note and "macOS 14" in note for note in notes)
    with pytest.raises(InputError, match="bandwidth"):
        inference_speed(spec, mac)
    assert inference_speed(spec, resolve_gpu("mac:memory_gb=64,bandwidth_gbps=546")).first_step.bound == "memory"
    assert runs_natively(mac, "bf16") and not runs_natively(mac, "fp8")


@pytest.mark.parametrize("text, field", [
    ("custom:memory_gb=-1,bandwidth_gbps=100", "memory_gb"),
    ("custom:memory_gb=nan,bandwidth_gbps=100", "memory_gb"),
    ("custom:memory_gb=80", "bandwidth_gbps"),
    ("custom:memory_gb=80,bandwidth_gbps=100,bf16_tflops=inf", "bf16_tflops"),
    ("custom:memory_gb=80,bandwidth_gbps=100,usable_gb=81", "usable_gb"),
    ("custom:memory_gb=80,bandwidth_gbps=100,compute_capability=nine", "compute_capability"),
    ("custom:memory=80", "gpu"),
    ("custom:memory_gb=80,bandwidth_gbps=100,pcie_gen=7", "pcie_gen"),
    ("mac:", "memory_gb"),
    ("mac:1e9", "memory_gb"),
    ("h100-sxm-2", "gpu"),
])
def test_bad_custom_gpus_are_refused_naming_the_key(text: str, field: str) -> None:
    with pytest.raises(InputError) as caught:
        resolve_gpu(text)
    assert caught.value.field == field
    with pytest.raises(InputError, match="^--gpu"):
        cli.run(["speed", "--model", "llama-3-8b", "--gpu", text])


# -------------------------------------------------------------- no time without the verdict
def test_a_job_that_does_not_fit_never_gets_a_time_without_the_verdict() -> None:
    spec = get_model("llama-3-8b")
    run = training_time(spec, resolve_gpu("rtx-4090"), tokens=10**9)  # full fine-tuning: about 16 bytes per parameter
    assert run.memory is not None and run.memory.verdict == "does not fit"
    assert run.to_dict()["memory"]["verdict"] == "does not fit"
    speed = inference_speed(get_model("llama-3-70b"), resolve_gpu("rtx-4090"))  # 141 GB of bf16 weights on 24 GiB
    assert speed.verdict == "does not fit"
    for data, text in (cli.run(["train-time", "--model", "llama-3-8b", "--gpu", "rtx-4090", "--tokens", "1e9"]),
                       cli.run(["speed", "--model", "llama-3-70b", "--gpu", "rtx-4090"])):
        verdict = data["memory"]["verdict"] if "memory" in data else data["verdict"]
        assert verdict == data["answer"]["verdict"] == "does not fit"
        assert text.startswith("On 1x GeForce RTX 4090: does not fit, ")  # the verdict before any time
    html = get_calculator("training-time").run({"model": "llama-3-8b", "gpu": "rtx-4090", "gpus": "1"})
    assert html.index("does not fit") < html.index("days")
    plan = recommend(Workload(model="llama-3-70b", job="serve", method="bf16"))
    assert all(row.verdict in ("fits", "tight") for row in plan.rows + plan.tight_rows)
    assert all(row.verdict == "fits" for row in plan.rows)


def test_memory_widgets_say_when_the_chosen_gpu_cannot_run_the_formats() -> None:
    # Memory does not depend on the GPU, so the answer stays; the note says the A100 has no fp8 path
    # (compute capability 8.0 < 8.9) and a Mac's training answer carries the MPS limits.
    html = get_calculator("inference-memory").run({"gpu": "a100-80gb-sxm", "weights": "fp8"})
    assert "cannot run this job" in html and "8.9" in html
    assert "FlashAttention" in get_calculator("training-memory").run({"gpu": "mac", "method": "qlora"})
