"""One fit verdict everywhere: its definition, its monotonicity, and the same answer in every face.

The verdict (calculators.fit): *fits* when total_bytes plus its measured uncertainty fits the
memory a process can allocate, *tight* when only total_bytes does, *does not fit* otherwise.
"""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from calculators import cli
from calculators.catalog.gpus import GPU, all_gpus, get_gpu
from calculators.catalog.models import get_model
from calculators.catalog.usable_memory import usable_memory_bytes
from calculators.dtype_support import on_gpu
from calculators.fit import (
    inference_placement,
    share_verdict,
    split_inference_estimate,
    split_inference_footprint,
    training_placement,
    fit_inference,
    fit_training,
    fit_verdict,
    footprint_on,
    inference_verdict,
    training_verdict,
    verdict_for,
)
from calculators.memory.inference import inference_memory
from calculators.memory.overhead import allocator_reserve_bytes, uncertainty_above_total
from calculators.memory.training import training_memory
from calculators.performance.inference_speed import inference_speed
from calculators.performance.training_time import training_time
from calculators.recommend import Workload, recommend
from calculators.jobs.registry import get_calculator

GIB = 2**30
MODELS = ("qwen2.5-0.5b", "llama-3.2-1b", "llama-3-8b", "mistral-7b-v0.1", "qwen2.5-7b", "llama-3-70b")
GPUS = tuple(g.id for g in all_gpus())


def test_verdict_definition_at_the_edges() -> None:
    # usable 10 GiB: a 7 GiB total with 2 GiB uncertainty fits (9 <= 10); with 4 GiB it is tight
    # (7 <= 10 < 11); an 11 GiB total does not fit.
    assert verdict_for(7 * GIB, 2 * GIB, 10 * GIB).verdict == "fits"
    assert verdict_for(7 * GIB, 4 * GIB, 10 * GIB).verdict == "tight"
    assert verdict_for(11 * GIB, 0, 10 * GIB).verdict == "does not fit"
    assert verdict_for(10 * GIB, 0, 10 * GIB).verdict == "fits"
    assert verdict_for(7 * GIB, 4 * GIB, 10 * GIB).margin_bytes == 3 * GIB


@settings(max_examples=60, deadline=None)
@given(model=st.sampled_from(MODELS), gpu=st.sampled_from(GPUS).map(get_gpu), batch=st.integers(1, 64),
       context=st.integers(1, 65536))
def test_inference_fits_is_never_given_over_usable_memory(model: str, gpu: GPU, batch: int, context: int) -> None:
    estimate = inference_memory(get_model(model), batch=batch, context=context)
    verdict = fit_verdict(estimate, gpu)
    total, uncertainty = footprint_on(estimate, gpu)
    usable = usable_memory_bytes(gpu)
    assert (verdict.verdict == "fits") == (total + uncertainty <= usable)
    assert (verdict.verdict == "does not fit") == (total > usable)


@settings(max_examples=40, deadline=None)
@given(model=st.sampled_from(MODELS), gpu=st.sampled_from(GPUS).map(get_gpu), batch=st.integers(1, 32),
       seq=st.sampled_from([256, 1024, 2048, 4096]), method=st.sampled_from(["full", "lora", "qlora"]),
       ckpt=st.booleans())
def test_a_larger_batch_never_fits_where_a_smaller_one_does_not(model: str, gpu: GPU, batch: int, seq: int,
                                                                method: str, ckpt: bool) -> None:
    rank = {"fits": 0, "tight": 1, "does not fit": 2}
    spec = get_model(model)
    job = {"method": method, "seq": seq, "grad_checkpointing": ckpt}
    smaller = fit_verdict(training_memory(spec, batch=batch, **job), gpu).verdict
    larger = fit_verdict(training_memory(spec, batch=batch + 1, **job), gpu).verdict
    assert rank[larger] >= rank[smaller]


@settings(max_examples=12, deadline=None)
@given(model=st.sampled_from(MODELS), gpu=st.sampled_from(GPUS).map(get_gpu), batch=st.integers(1, 16),
       method=st.sampled_from(["full", "lora", "qlora"]), context=st.sampled_from([1024, 8192, 32768]))
def test_the_verdict_alone_is_the_fit_answers_verdict(model: str, gpu: GPU, batch: int, method: str,
                                                      context: int) -> None:
    # The hardware page's fit matrix takes inference_verdict / training_verdict (no limit searches):
    # they must say what fit_inference / fit_training say for the same job.
    spec = get_model(model)
    train = on_gpu(gpu, {"method": method, "precision": "bf16-mixed", "batch": batch, "seq": 2048,
                          "grad_checkpointing": True})
    infer = on_gpu(gpu, {"weights": "bf16", "kv_cache": "bf16", "batch": batch, "context": context})
    for alone, answer in ((training_verdict(spec, gpu, **train), fit_training(spec, gpu, **train)),
                          (inference_verdict(spec, gpu, **infer), fit_inference(spec, gpu, **infer))):
        assert alone[1] == answer.verdict and alone[0] == answer.estimate


def test_max_batch_is_the_last_batch_that_fits() -> None:
    spec = get_model("llama-3-8b")
    result = fit_training(spec, "h100-sxm", method="lora", seq=2048)
    assert result.max_batch >= 1
    assert fit_verdict(training_memory(spec, method="lora", seq=2048, batch=result.max_batch), get_gpu("h100-sxm")).fits
    assert not fit_verdict(training_memory(spec, method="lora", seq=2048, batch=result.max_batch + 1),
                           get_gpu("h100-sxm")).fits
    assert result.max_batch <= result.max_batch_tight


def test_cli_api_widget_recommend_speed_and_time_give_one_verdict() -> None:
    spec = get_model("llama-3-8b")
    # Serving Llama 3 8B at 8k x 16 on one GPU of each kind.
    # Each GPU in the 16-bit format it runs (fp16 on the T4 and V100, which have no BF16; same bytes).
    api = {gpu.id: fit_inference(spec, gpu, **on_gpu(gpu, {"context": 8192, "batch": 16, "weights": "bf16",
                                                           "kv_cache": "bf16"})).verdict.verdict
           for gpu in all_gpus()}
    data, _text = cli.run(["fit", "--model", "llama-3-8b", "infer", "--context", "8192", "--batch", "16"])
    assert {row["gpu"]: row["verdict"] for row in data["gpus"]} == api
    calculator = get_calculator("fit")
    view = calculator.compute(calculator.values({"model": "llama-3-8b", "job": "inference", "context": "8192",
                                                 "batch": "16"}))
    assert {gpu.id: result.verdict.verdict for gpu, result in view.rows} == api
    plan = recommend(Workload(model=spec, job="serve", context=8192, batch=16))
    listed = plan.rows + plan.tight_rows
    for row in listed:
        if row.count == 1:
            assert row.verdict == api[row.gpu_id]
    kept = {row.gpu_id for row in listed if row.count == 1}
    apple = {gpu.id for gpu in all_gpus() if gpu.vendor == "Apple"}  # recommend skips Macs by default
    no_bf16 = {"t4", "v100-sxm2-32gb"}  # bf16 asked: skipped with the reason (compute capability below 8.0)
    assert kept == {gpu for gpu, verdict in api.items() if verdict != "does not fit" and gpu not in apple | no_bf16}
    assert all(any(gpu.name in line for line in plan.skipped) for gpu in all_gpus() if gpu.id in no_bf16)
    for gpu in ("rtx-4090", "h100-sxm"):
        assert inference_speed(spec, get_gpu(gpu), context=8192, batch=16).verdict == api[gpu]
    # Full fine-tuning on 8 x H100 at ZeRO-0: training time carries the same verdict as fit.
    run = training_time(spec, get_gpu("h100-sxm"), tokens=10**9, gpus=8)
    assert run.memory is not None
    assert run.memory.verdict == fit_verdict(training_memory(spec, gpus=8), get_gpu("h100-sxm")).verdict == "does not fit"
    cli_data, text = cli.run(["train-time", "--model", "llama-3-8b", "--gpu", "h100-sxm", "--gpus", "8",
                              "--tokens", "1000000000", "--json"])
    assert json.loads(json.dumps(cli_data))["memory"]["verdict"] == "does not fit"
    assert run.memory_advice and text.startswith("On 8x H100 SXM 80GB, data parallel, no sharding (DDP): does not fit")
    assert "Single changes that make it fit: " in text


def test_a_mac_has_no_cuda_context() -> None:
    spec = get_model("llama-3-8b")
    estimate = inference_memory(spec, context=8192)
    total, _ = footprint_on(estimate, get_gpu("m4-max"))
    assert estimate.total_bytes - total == 785 * 2**20 + 64 * 2**20  # context + cuBLAS workspaces


# --------------------------------------------------------------------------- the reader's GPU count (#27)


def test_a_split_inference_job_keeps_each_gpus_own_overhead() -> None:
    """Derivation (tensor parallel, Megatron-LM / vLLM): weights, KV cache and activations divide by the GPU
    count; each GPU holds its own CUDA context and cuBLAS workspaces; the reserve follows the smaller block."""
    job = inference_memory(get_model("llama-3-8b"), context=8192)
    workspaces, context = job.breakdown["cuda_workspaces"], job.overhead["cuda_context"]
    for count in (2, 3, 8):
        share = split_inference_estimate(job, count)
        block = -(-job.transient_block_bytes // count)
        reserve = allocator_reserve_bytes(transient_block_bytes=block, recompute=False, prefill=True)
        allocated = -(-(job.peak_allocated_bytes - workspaces) // count) + workspaces
        assert share.peak_allocated_bytes == allocated == sum(share.breakdown.values())
        assert share.total_bytes == allocated + context + reserve
        assert share.breakdown["cuda_workspaces"] == workspaces
        assert share.uncertainty_bytes == uncertainty_above_total(
            {"cuda_context": context, "allocator_reserve": reserve}, transient_block_bytes=block, prefill=True)
        assert split_inference_footprint(job, count) == (share.total_bytes, share.uncertainty_bytes)
    assert split_inference_estimate(job, 1) is job


def test_more_gpus_never_need_more_memory_each() -> None:
    job = inference_memory(get_model("llama-3.1-70b"), weights="int4", context=8192)
    totals = [split_inference_footprint(job, count)[0] for count in range(2, 17)]
    assert totals == sorted(totals, reverse=True)


def test_two_rtx_4090_hold_a_70b_int4_model_tight_and_three_fit() -> None:
    """#27's question: Llama 3.1 70B, int4 weights, 8k context on 2x RTX 4090 is *tight* (``mlhw speed --gpus 2``
    said so at filing), and the fit calculator's 'GPUs needed' of 3 is the fewest that *fit*."""
    job = inference_memory(get_model("llama-3.1-70b"), weights="int4", context=8192)
    placed = inference_placement(job, get_gpu("rtx-4090"), gpus=2)
    assert (placed.verdict.verdict, placed.fewest_tight, placed.fewest_fits) == ("tight", 2, 3)
    assert placed.verdict == share_verdict(job, get_gpu("rtx-4090"), gpus=2)
    assert placed.fewest_fits_verdict is not None and placed.fewest_fits_verdict.fits
    assert share_verdict(job, get_gpu("rtx-4090"), gpus=placed.fewest_fits - 1).verdict != "fits"
    assert placed.split == "tensor or pipeline parallel"


def test_the_fewest_gpus_are_the_first_that_fit() -> None:
    """Whatever the job: the count found fits, one fewer does not; the tight count is never above it."""
    for model, gpu, weights in (("llama-3-8b", "t4", "fp16"), ("qwen2.5-7b", "l4", "bf16"),
                                ("mixtral-8x7b", "a100-40gb-sxm", "int8"), ("llama-3.1-70b", "h100-sxm", "fp8")):
        job = inference_memory(get_model(model), weights=weights, batch=4, context=16384)
        placed = inference_placement(job, get_gpu(gpu))
        assert placed.fewest_fits is not None and placed.fewest_tight is not None
        assert placed.fewest_tight <= placed.fewest_fits
        assert share_verdict(job, get_gpu(gpu), gpus=placed.fewest_fits).fits
        if placed.fewest_fits > 1:
            assert not share_verdict(job, get_gpu(gpu), gpus=placed.fewest_fits - 1).fits


def test_training_on_the_readers_gpus_is_sharded_by_their_zero_stage() -> None:
    """The verdict on N data-parallel GPUs is training_memory's per-GPU estimate with that ZeRO stage; the fewest
    GPUs are searched with ZeRO-3 over powers of two, as fit_training always did (one GPU when one fits)."""
    spec, h100 = get_model("llama-3-8b"), get_gpu("h100-sxm")
    placed = training_placement(spec, h100, method="full", gpus=8, zero=3)
    assert placed.gpus == 8 and placed.split == "data parallel, ZeRO-3"
    assert placed.verdict == fit_verdict(training_memory(spec, method="full", gpus=8, zero=3), h100)
    assert placed.fewest_fits is not None and placed.fewest_fits & (placed.fewest_fits - 1) == 0
    assert fit_verdict(training_memory(spec, method="full", gpus=placed.fewest_fits, zero=3), h100).fits
    assert not fit_verdict(training_memory(spec, method="full", gpus=placed.fewest_fits // 2, zero=3), h100).fits
    one = training_placement(spec, h100, method="lora")
    assert (one.gpus, one.split, one.fewest_tight, one.fewest_fits) == (1, "", 1, 1)


def test_tensor_parallelism_divides_a_kv_cache_over_its_kv_heads_only() -> None:
    """A split that holds for tensor parallelism: attention is split by heads, so a GPU past the KV heads keeps a copy
    of one (vLLM's QKVParallelLinear: num_kv_head_replicas = tp / num_kv_heads) and an MLA latent, one per token, is
    held whole by every GPU (SGLang's data-parallel attention guide: DeepSeek's MLA "only has one KV head", tensor
    parallelism on 8 GPUs duplicates the KV cache)."""
    from calculators.fit.placement import split_inference_estimate
    from calculators.memory.inference import inference_memory

    deepseek = inference_memory(get_model("deepseek-v3"), context=32768, batch=16)
    kv = deepseek.breakdown["kv_cache"]
    assert kv == 16 * 32768 * 61 * (512 + 64) * 2  # batch x tokens x layers x (kv_lora_rank + rope dim) x bf16
    eight = split_inference_estimate(deepseek, 8)
    assert eight.breakdown["kv_cache"] == kv  # every GPU holds the whole latent cache
    assert eight.peak_allocated_bytes >= -(-(deepseek.peak_allocated_bytes - kv) // 8) + kv
    llama = inference_memory(get_model("llama-3.1-70b"), context=8192, batch=8)  # 8 KV heads
    kv = llama.breakdown["kv_cache"]
    assert split_inference_estimate(llama, 4).breakdown["kv_cache"] == kv // 4  # 2 heads each: an even share
    assert split_inference_estimate(llama, 16).breakdown["kv_cache"] == -(-kv // 8)  # one head each, copied twice
