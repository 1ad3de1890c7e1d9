"""Serving under load (calculators.performance.serving_load): continuous batching at a concurrency or a rate.

Expected values come from derivations written here: at concurrency 1 nothing shares a
step, so the answer is the batch-1 static answer of ``inference_speed``; Little's law ties
requests in flight, throughput and latency; a roofline bound caps the sustainable rate; the
KV cache of every request in flight bounds the concurrency from above.
"""

from __future__ import annotations

import dataclasses
import inspect
import json
import math
from typing import Any

import pytest

from calculators import serving_load
from calculators.performance.served import Load, ServedInputs, ServedModel
from calculators.catalog.engines import get_engine
from calculators.catalog.gpus import get_gpu
from calculators.catalog.models import get_model
from calculators.catalog.usable_memory import usable_memory_bytes
from calculators.cli import build_parser, main
from calculators.cli import run as cli_run
from calculators.errors import InputError
from calculators.memory.inference import inference_memory
from calculators.memory.weights import weight_bytes
from calculators.performance.flops import compute_rate_flop_per_s
from calculators.performance.forward_pass import decode_flops_per_token, prefill_flops
from calculators.performance.inference_speed import inference_speed
from calculators.performance.serving_load import PREFILL_MODES
from calculators.performance.speed_setup import ServerInputs, SpeedInputs, SpeedSetup
from calculators.dtypes import DType
from calculators.serving import continuous_batch_memory
from calculators.validate import default_of

H100 = get_gpu("h100-sxm")
LLAMA = get_model("llama-3-8b")
SHAPE = {"prompt_tokens": 1024, "output_tokens": 256}
CONCURRENCIES = (1, 2, 4, 8, 16, 32, 64, 128, 256)
LOAD_KEYS = ("prompt_tokens", "output_tokens", "concurrency", "request_rate_per_s", "prefill")


def serve(spec: Any, gpu: Any, **raw: Any) -> Any:
    """:func:`serving_load` on the two records built from one flat set of inputs: :class:`Load`'s keywords
    build the load, the rest the served model (as the serve-load calculator splits its form)."""
    lengths = {name: raw.pop(name) for name in LOAD_KEYS if name in raw}
    return serving_load(ServedModel.of(model=spec, gpu=gpu, **raw), Load.of(**lengths))


@pytest.mark.parametrize("prefill", PREFILL_MODES)
@pytest.mark.parametrize(("model", "gpu", "engine", "prompt", "output"), [
    ("llama-3-8b", "h100-sxm", "vllm", 1024, 256),
    ("llama-3-8b", "rtx-4090", "generic", 512, 128),
    ("qwen2.5-0.5b", "l4", "vllm", 256, 127),  # an odd output: the mean context falls between two steps
])
def test_concurrency_one_is_the_batch_one_static_answer(model: str, gpu: str, engine: str, prompt: int,
                                                        output: int, prefill: str) -> None:
    # One user, closed loop: its next request starts when the last ends, so nothing shares a step.
    # The answer is a static batch of 1: first token = fixed cost + prefill; then output - 1 decode steps.
    spec, record = get_model(model), get_gpu(gpu)
    static = inference_speed(spec, record, engine=engine, batch=1, context=prompt, new_tokens=output)
    load = serve(spec, record, engine=engine, prompt_tokens=prompt, output_tokens=output, concurrency=1,
                        prefill=prefill)
    assert load.status == "ok"
    assert load.decode_batch == pytest.approx(1.0)
    assert load.time_to_first_token_s == pytest.approx(static.time_to_first_token_s, rel=1e-9)
    assert load.end_to_end_latency_s == pytest.approx(static.generation_time_s, rel=1e-9)
    decode_s = static.generation_time_s - static.time_to_first_token_s
    assert load.inter_token_latency_s == pytest.approx(decode_s / (output - 1), rel=1e-9)
    assert load.output_tokens_per_s == pytest.approx(static.output_tokens_per_s, rel=1e-9)


@pytest.mark.parametrize("prefill", PREFILL_MODES)
@pytest.mark.parametrize("users", CONCURRENCIES)
def test_littles_law_holds_for_requests_and_for_decoding_requests(users: int, prefill: str) -> None:
    load = serve(LLAMA, H100, engine="vllm", concurrency=users, prefill=prefill, **SHAPE)
    assert load.requests_per_s is not None and load.end_to_end_latency_s is not None
    assert load.inter_token_latency_s is not None and load.decode_batch is not None
    # Little: requests in the system = throughput x time in the system.
    assert load.requests_per_s * load.end_to_end_latency_s == pytest.approx(users, rel=1e-9)
    # Little again, on the decoding phase (output - 1 steps per request): the others a request decodes
    # beside are (C - 1) / C of the mean number decoding.
    decoding = load.requests_per_s * (SHAPE["output_tokens"] - 1) * load.inter_token_latency_s
    assert load.decode_batch - 1 == pytest.approx((users - 1) / users * decoding, rel=1e-9)
    assert load.output_tokens_per_s == pytest.approx(load.requests_per_s * SHAPE["output_tokens"])


@pytest.mark.parametrize("prefill", PREFILL_MODES)
def test_more_users_raise_throughput_and_slow_each_user(prefill: str) -> None:
    loads = [serve(LLAMA, H100, engine="vllm", concurrency=c, prefill=prefill, **SHAPE) for c in CONCURRENCIES]
    totals = [load.output_tokens_per_s for load in loads]
    per_user = [load.decode_tokens_per_s_per_user for load in loads]
    first = [load.time_to_first_token_s for load in loads]
    assert totals == sorted(totals) and len(set(totals)) == len(totals)
    assert per_user == sorted(per_user, reverse=True)  # type: ignore[type-var]
    assert first == sorted(first)  # type: ignore[type-var]
    for load, users in zip(loads, CONCURRENCIES, strict=True):
        assert load.decode_batch is not None and load.decode_batch <= users


@pytest.mark.parametrize("prefill", PREFILL_MODES)
def test_a_shared_prefill_pass_is_never_faster_than_the_prefill_alone(prefill: str) -> None:
    alone = inference_speed(LLAMA, H100, engine="vllm", batch=1, context=1024, new_tokens=1)
    for users in CONCURRENCIES:
        load = serve(LLAMA, H100, engine="vllm", concurrency=users, prefill=prefill, **SHAPE)
        assert load.time_to_first_token_s is not None
        assert load.time_to_first_token_s >= alone.time_to_first_token_s * (1 - 1e-12)


def test_a_trickle_of_requests_gets_the_batch_one_answer() -> None:
    # At 1 request per 10^6 s a request almost never meets another: the static batch-1 answer.
    static = inference_speed(LLAMA, H100, engine="vllm", batch=1, context=1024, new_tokens=256)
    load = serve(LLAMA, H100, engine="vllm", request_rate_per_s=1e-6, **SHAPE)
    assert load.end_to_end_latency_s == pytest.approx(static.generation_time_s, rel=1e-4)
    assert load.time_to_first_token_s == pytest.approx(static.time_to_first_token_s, rel=1e-4)


@pytest.mark.parametrize("rate", [0.5, 2.0, 8.0, 12.0])
def test_an_open_loop_below_capacity_serves_its_offered_rate(rate: float) -> None:
    # Capacity is about 14.5 requests/s here since vLLM's host cost per sequence per step is a term (16 was below
    # it before); every rate listed must stay below the highest sustainable one.
    assert rate < serve(LLAMA, H100, engine="vllm", request_rate_per_s=1.0, **SHAPE).max_request_rate_per_s  # type: ignore[operator]
    load = serve(LLAMA, H100, engine="vllm", request_rate_per_s=rate, **SHAPE)
    assert load.status == "ok"
    assert load.requests_per_s == pytest.approx(rate, rel=1e-9)
    assert load.output_tokens_per_s == pytest.approx(rate * SHAPE["output_tokens"], rel=1e-9)
    assert load.in_flight == pytest.approx(rate * load.end_to_end_latency_s, rel=1e-9)  # type: ignore[operator]


def test_a_rate_above_capacity_is_saturated_and_gets_no_speed() -> None:
    top = serve(LLAMA, H100, engine="vllm", request_rate_per_s=1.0, **SHAPE).max_request_rate_per_s
    assert top is not None
    over = serve(LLAMA, H100, engine="vllm", request_rate_per_s=top * 1.01, **SHAPE)
    assert over.status == "saturated" and not over.fits
    assert over.output_tokens_per_s is None and over.end_to_end_latency_s is None
    assert over.max_request_rate_per_s == pytest.approx(top)
    near = serve(LLAMA, H100, engine="vllm", request_rate_per_s=top * 0.98, **SHAPE)
    half = serve(LLAMA, H100, engine="vllm", request_rate_per_s=top * 0.5, **SHAPE)
    assert near.status == half.status == "ok"
    assert near.end_to_end_latency_s > half.end_to_end_latency_s  # type: ignore[operator]


@pytest.mark.parametrize("prefill", PREFILL_MODES)
def test_the_sustainable_rate_is_below_the_compute_roofline(prefill: str) -> None:
    # Every request needs the prefill FLOPs of its prompt and a decode token's FLOPs for each of the
    # other output - 1 tokens; no schedule does them faster than the dense rate x the engine's efficiency.
    setup = SpeedSetup.of(engine="vllm", weights="bf16")
    flops = prefill_flops(LLAMA, prompt=1024) + sum(decode_flops_per_token(LLAMA, context=1024 + i)
                                                    for i in range(1, 256))
    rate = compute_rate_flop_per_s(H100, DType.BF16)
    assert rate is not None
    top = serve(LLAMA, H100, engine="vllm", request_rate_per_s=1.0, prefill=prefill,
                       **SHAPE).max_request_rate_per_s
    assert top is not None and top <= rate * setup.compute_efficiency / flops


@pytest.mark.parametrize("users", CONCURRENCIES[1:])
def test_a_fused_pass_is_never_slower_than_separate_passes(users: int) -> None:
    # One pass: max(memory_d + memory_p - shared weights, compute_d + compute_p) + one fixed cost, which is
    # at most max(memory_d, compute_d) + fixed + max(memory_p, compute_p) + fixed (max(a + b, c + d) <=
    # max(a, c) + max(b, d)). So fusing never lowers throughput and never raises the inter-token latency.
    separate = serve(LLAMA, H100, engine="vllm", concurrency=users, prefill="separate", **SHAPE)
    fused = serve(LLAMA, H100, engine="vllm", concurrency=users, prefill="fused", **SHAPE)
    assert fused.output_tokens_per_s >= separate.output_tokens_per_s  # type: ignore[operator]
    assert fused.end_to_end_latency_s <= separate.end_to_end_latency_s  # type: ignore[operator]


def test_the_max_concurrency_is_bounded_by_the_kv_cache_it_needs() -> None:
    # Llama 3 8B bf16: weights 2 x 8,030,261,248 bytes; KV 2 x 32 layers x 8 heads x 128 x 2 bytes = 128 KiB
    # per token, 1280 tokens per request. The requests in flight can hold no more than usable - weights.
    per_request = 1280 * 131072
    bound = (usable_memory_bytes(H100) - weight_bytes(LLAMA, dtype="bf16")) // per_request
    load = serve(LLAMA, H100, concurrency=1, **SHAPE)
    assert 0.85 * bound < load.max_concurrency <= bound
    assert serve(LLAMA, H100, concurrency=load.max_concurrency, **SHAPE).verdict == "fits"


def test_a_concurrency_whose_kv_cache_does_not_fit_gets_no_throughput() -> None:
    most = serve(LLAMA, H100, concurrency=1, **SHAPE).max_concurrency
    refused = serve(LLAMA, H100, concurrency=2 * most, **SHAPE)
    assert refused.status == "does not fit" and refused.verdict == "does not fit" and not refused.fits
    assert refused.max_concurrency == most
    assert refused.output_tokens_per_s is None and refused.time_to_first_token_s is None
    _, text = cli_run(["serve-load", "--model", "llama-3-8b", "--gpu", "h100-sxm", "--concurrency", str(2 * most),
                       "--prompt-tokens", str(SHAPE["prompt_tokens"]), "--output-tokens", str(SHAPE["output_tokens"])])
    assert text.startswith("On 1x H100 SXM 80GB: does not fit, ")
    assert f"does not fit at {2 * most} concurrent users" in text and f"at most {most} requests in flight fit" in text


@pytest.mark.parametrize("load", [{"concurrency": 1}, {"request_rate_per_s": 0.1}])
def test_a_model_too_big_for_the_gpu_never_gets_a_speed(load: dict[str, Any]) -> None:
    # Llama 3.1 70B in bf16 is 141 GB of weights; an RTX 4090 has 24 GB.
    answer = serve(get_model("llama-3.1-70b"), get_gpu("rtx-4090"), **SHAPE, **load)
    assert answer.status == "does not fit" and answer.max_concurrency == 0
    assert answer.max_request_rate_per_s is None and answer.output_tokens_per_s is None


def test_serving_memory_prefills_one_prompt_not_the_whole_batch() -> None:
    # 64 requests: the KV cache of 64 x 1280 tokens plus the temporaries of one 1024-token prefill,
    # where a static batch would prefill 64 prompts in one forward.
    served = continuous_batch_memory(LLAMA, sequences=64, prompt_tokens=1024, output_tokens=256)
    one = inference_memory(LLAMA, batch=1, context=1024)
    assert served.breakdown["kv_cache"] == 64 * 1280 * 131072
    assert served.peak_allocated_bytes == (inference_memory(LLAMA, batch=64, context=1024, new_tokens=256)
                                           .phase_peaks["decode"] + one.breakdown["activations_and_logits"])
    more = continuous_batch_memory(LLAMA, sequences=65, prompt_tokens=1024, output_tokens=256)
    assert more.total_bytes - served.total_bytes >= 1280 * 131072


@pytest.mark.parametrize(("kwargs", "field"), [
    ({"concurrency": 0}, "concurrency"),
    ({"concurrency": -3}, "concurrency"),
    ({"concurrency": math.nan}, "concurrency"),
    ({"concurrency": 2.5}, "concurrency"),
    ({"concurrency": "many"}, "concurrency"),
    ({"concurrency": 10**9}, "concurrency"),
    ({"request_rate_per_s": 0}, "request_rate_per_s"),
    ({"request_rate_per_s": -1.0}, "request_rate_per_s"),
    ({"request_rate_per_s": math.nan}, "request_rate_per_s"),
    ({"request_rate_per_s": math.inf}, "request_rate_per_s"),
    ({"request_rate_per_s": 1e12}, "request_rate_per_s"),
    ({}, "concurrency"),
    ({"concurrency": 4, "request_rate_per_s": 1.0}, "concurrency"),
    ({"concurrency": 4, "prompt_tokens": 0}, "prompt_tokens"),
    ({"concurrency": 4, "output_tokens": 1}, "output_tokens"),
    ({"concurrency": 4, "prompt_tokens": 1 << 30}, "prompt_tokens"),
    ({"concurrency": 4, "engine": "nope"}, "engine"),
    ({"concurrency": 4, "weights": "int3"}, "weights"),
    ({"concurrency": 4, "gpus": 0}, "gpus"),
    ({"concurrency": 4, "prefill": "chunky"}, "prefill"),
])
def test_bad_input_is_an_input_error_naming_the_field(kwargs: dict[str, Any], field: str) -> None:
    with pytest.raises(InputError) as info:
        serve(LLAMA, H100, **kwargs)
    assert info.value.field == field


def test_an_unknown_gpu_is_an_input_error_naming_the_gpu() -> None:
    with pytest.raises(InputError) as info:
        serve(LLAMA, "no-such-gpu", concurrency=4)  # type: ignore[arg-type]
    assert info.value.field == "gpu"


def test_cli_gives_the_api_answer(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["serve-load", "--model", "llama-3-8b", "--gpu", "h100-sxm", "--engine", "vllm", "--concurrency", "16",
            "--prompt-tokens", "1024", "--output-tokens", "256", "--json"]
    assert main(argv) == 0
    printed = json.loads(capsys.readouterr().out)
    api = serve(LLAMA, H100, engine="vllm", concurrency=16, **SHAPE).to_dict()
    # The engine's answer as it always was, then the placement on the reader's GPUs and the chart's points.
    assert {key: value for key, value in printed.items() if key not in ("answer", "by_concurrency")} == json.loads(
        json.dumps(api))
    assert printed["answer"]["verdict"] == printed["verdict"] and printed["answer"]["gpus"] == 1


def test_cli_error_names_the_request_rate_flag(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["serve-load", "--model", "llama-3-8b", "--gpu", "h100-sxm", "--request-rate", "-2"]) == 2
    assert capsys.readouterr().err.startswith("mlhw: error: --request-rate:")


def test_cli_defaults_are_the_engine_defaults() -> None:
    # The CLI reads its defaults from the records' declarations (ServedInputs, Load); an input typed by hand in
    # one place fails here.
    args = build_parser().parse_args(["serve-load", "--model", "m", "--gpu", "g", "--concurrency", "1"])
    owners = {name: record for record in (ServedInputs, Load)
              for name, p in inspect.signature(record).parameters.items()
              if p.default is not inspect.Parameter.empty and name != "concurrency"}
    shared = {k: v for k, v in vars(args).items() if k in owners}
    assert set(shared) >= {"prompt_tokens", "output_tokens", "engine", "weights", "kv_cache", "gpus", "prefill",
                           "request_rate_per_s"}
    for name, value in shared.items():
        assert value == default_of(owners[name], name), name


def test_the_server_inputs_are_declared_once() -> None:
    # The serving calculator and the speed calculator take the same eight server inputs (the weights and KV cache
    # formats, GPUs, engine, the two efficiencies, the link and its efficiency): one declaration, ServerInputs,
    # gives both their fields and defaults, so the two faces cannot drift apart.
    server = {f.name: f.default for f in dataclasses.fields(ServerInputs)}
    assert set(server) == {"weights", "kv_cache", "gpus", "engine", "bandwidth_efficiency", "compute_efficiency",
                           "interconnect", "collective_efficiency"}
    for record in (ServedInputs, SpeedInputs):
        assert issubclass(record, ServerInputs) and not set(server) & set(record.__dict__["__annotations__"])
        assert {name: default_of(record, name) for name in server} == server
    # A keyword neither record has is refused as before; batch is a speed input, not a served-model one.
    with pytest.raises(TypeError, match="unexpected keyword argument 'batch'"):
        ServedModel.of(model="llama-3-8b", gpu="h100-sxm", batch=4)


@pytest.mark.parametrize("fused", [False, True])
def test_a_step_without_prompts_is_the_decode_step(fused: bool) -> None:
    # With no prompt to prefill, a server's pass is a decode step at the batch (both prefill options):
    # the mean of decode_step's times at the two middle contexts of a 1024 + 256-token request. At batch
    # 512 the projections are compute-bound and attention memory-bound, so a pass that lost the attention
    # split (one roofline over both) would come out shorter.
    from calculators.performance.inference_speed import decode_step
    from calculators.performance.serving_load import _Server

    spec, gpu = get_model("llama-3-8b"), get_gpu("h100-sxm")
    setup = SpeedSetup.of(engine="vllm", weights="bf16", batch=1)
    server = _Server(spec, gpu, setup, 1024, 256, fused=fused)
    expected = sum(decode_step(spec, gpu, engine="vllm", batch=512, context=c).time_s for c in (1152, 1152)) / 2
    assert server.pass_s(512, 0) == pytest.approx(expected, rel=1e-12)


# --------------------------------------------------------------------------- percentiles (serving_tails)
def test_alone_the_percentiles_are_the_means() -> None:
    # concurrency 1: no other prompt ever shares a step and the GPU is idle when the request arrives
    load = serve(LLAMA, H100, engine="vllm", concurrency=1, **SHAPE)
    assert load.time_to_first_token_p99_s == pytest.approx(load.time_to_first_token_s, rel=1e-9)
    assert load.inter_token_latency_p99_s == pytest.approx(load.inter_token_latency_s, rel=1e-9)


def test_under_load_the_tails_are_the_steps_that_carry_prefills() -> None:
    from calculators.performance.serving_tails import poisson_quantile

    load = serve(LLAMA, H100, engine="vllm", concurrency=32, **SHAPE)
    assert load.decode_batch is not None and load.inter_token_latency_s is not None
    ordered = (load.time_to_first_token_s, load.time_to_first_token_p90_s, load.time_to_first_token_p99_s)
    assert all(a is not None for a in ordered) and ordered[0] < ordered[1] <= ordered[2]  # type: ignore[operator]
    # prompts per step: the other decoding requests' one prompt per 255 decode steps, Poisson
    prompts = (load.decode_batch - 1) / (SHAPE["output_tokens"] - 1)
    k99 = poisson_quantile(prompts, 0.99)
    assert k99 >= 1  # at 32 users one step in a hundred carries a prefill or more
    alone = serve(LLAMA, H100, engine="vllm", concurrency=1, **SHAPE)
    # a step that carries k99 whole prefills (separate passes) lasts the decode step plus k99 prefill passes
    assert load.inter_token_latency_p99_s is not None and alone.time_to_first_token_s is not None
    assert load.inter_token_latency_p99_s > load.inter_token_latency_s + 0.5 * k99 * (
        alone.time_to_first_token_s - get_engine("vllm").value("request_overhead_s"))
    assert load.to_dict()["time_to_first_token_p99_s"] == ordered[2]
    from calculators.cli import run  # the answer every face draws states them

    _, text = run(["serve-load", "--model", "llama-3-8b", "--gpu", "h100-sxm", "--engine", "vllm", "--concurrency", "32",
                   "--prompt-tokens", str(SHAPE["prompt_tokens"]), "--output-tokens", str(SHAPE["output_tokens"])])
    assert any(line.startswith("Time to first token, p99") and line.split()[-3] == f"{ordered[2] * 1000:,.1f}"
               for line in text.splitlines())
