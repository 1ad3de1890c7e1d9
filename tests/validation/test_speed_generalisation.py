"""The speed model with each figure's engine or hardware generation held out: the protocol, and no regression.

The errors are computed by :mod:`calculators.speed_accuracy.generalisation` from the published figures
(tests/data/published_speed); ``LIMITS`` holds what each split reached when this test was last tightened,
with a little room, so a change that makes a split worse fails here. Issue 28's targets (median 12 %, p90
30 %) are printed by scripts/score_generalisation.py and the accuracy page; a split that meets them should
have its limits lowered to them.
"""

from __future__ import annotations

import pytest

from calculators import speed_accuracy
from calculators.catalog.generations import hardware_generation
from calculators.catalog.gpus import get_gpu
from calculators.speed_accuracy import generalisation as gen
from calculators.speed_accuracy import held_out

#: split -> (median, 90th percentile) limits on the |error| of all figures together. Reached with the 2025-26 figures
#: (392 scored): source 12.0 % / 33.2 %, engine 20.8 % / 64.6 %, generation 17.6 % / 45.0 %; on the 301 before them
#: 9.9 % / 32.4 %, 17.8 % / 70.7 %, 14.0 % / 43.9 %.
#: With the engines' custom all-reduce kernels and vLLM's fixed cost per sequence per step: 10.8 % / 30.9 %,
#: 18.1 % / 64.1 %, 12.8 % / 43.5 %.
#: With the expert-parallel all-to-alls: 10.7 % / 30.9 %, 18.2 % / 64.1 %, 12.8 % / 42.2 %.
#: With the 2026 GPUs catalogued (M3 Ultra, M4 Max and the other new parts), 16 more figures are scored (408), among
#: them MLX's M4 Max prompt figures, 19-34 % slow: 10.9 % / 32.3 %, 19.0 % / 66.9 %, 13.8 % / 42.2 %.
#: With inference compute timed at the vendor's measured sustained matmul rate where one is catalogued (MI300X and
#: MI325X: AMD's max-achievable FLOPs at the clock they hold under dense GEMMs), vLLM's FP8 efficiency on MI300X is no
#: longer the pooled FP8 value a held-out TensorRT-LLM falls back to (0.174 -> about 0.41 of the rate): 10.8 % / 32.3 %,
#: 16.5 % / 58.1 %, 13.2 % / 41.3 %.
#: With the fixed cost per request only where a request went through the engine's server (a stated concurrency;
#: TensorRT-LLM's gptSessionBenchmark figures no longer take vLLM's HTTP front end, 28.6 ms, when held out):
#: 10.5 % / 32.8 %, 17.0 % / 45.1 %, 13.3 % / 40.5 %. A ratchet: lowered to what was measured, never raised to let
#: a change pass (the source split's p90 limit stays 0.33).
#: With an eager engine held out paying PyTorch's measured host cost per layer (0.93 ms, GPT, Fast) instead of the
#: pooled cost of graph-replaying engines (85 us; transformers' decode and batched figures were 350-530 % too fast):
#: 10.5 % / 32.8 %, 16.3 % / 36.3 %, 13.3 % / 40.5 %.
#: With the training utilisation placed by each GPU's rate / bandwidth (one byte-bound constant instead of a base per
#: GPU family): 9.9 % / 32.4 %, 15.7 % / 37.0 %, 11.8 % / 36.9 %; with an expert-parallel group inside a GB200
#: NVL72 rack's 72-GPU NVLink domain (its all-to-all no longer sent over InfiniBand): 9.9 % / 32.4 %,
#: 15.7 % / 36.3 %, 11.8 % / 36.9 %.
#: With the M4 Max timed at its own clock (1,678 MHz, not the lowest M4 part's 1,470; MLX's prompt figures were
#: 19-34 % slow held out), both together: 9.7 % / 29.5 %, 15.4 % / 35.8 %, 11.7 % / 35.7 %.
#: With TensorRT-LLM v0.5 / v0.6.1 all-reducing by NCCL's ring (no --use_custom_all_reduce in their builds):
#: 9.7 % / 29.4 %, 15.4 % / 35.4 %, 11.7 % / 35.7 % (engine-out first token p90 72.1 % -> 57.1 %).
#: With the pooled fixed cost per layer of the CUDA-graph engines only and a held-out vLLM paying its developers'
#: measured host time per sequence (100 us): 9.8 % / 29.1 %, 12.2 % / 35.2 %, 11.7 % / 35.7 %.
#: With llama.cpp's builds before CUDA graphs paying NVIDIA's measured launch cost per layer (27.3 us) on CUDA GPUs:
#: 8.8 % / 28.7 %, 14.1 % / 35.1 %, 11.0 % / 34.1 %.
#: With the Llama 3 405B scaling rows on their interleaved pipeline (V 8), NVLink SHARP's efficiency derived (the two
#: NVLS runs no longer take the other link kinds' median when held out) and the expert-parallel all-to-alls overlapped
#: where the row says so: 9.7 % / 29.4 %, 15.2 % / 34.2 %, 11.5 % / 34.0 %.
#: serve-b, decode and train together: 9.0 % / 27.1 %, 11.1 % / 31.3 %, 10.5 % / 32.5 %.
#: With torchtitan's selective recomputation counted (its op policy recomputes every second matmul of a block):
#: 9.0 % / 26.4 %, 11.0 % / 31.3 %, 10.2 % / 31.5 %.
#: With no FP8 gain promised to an FP8 recipe no run in the fit measures (Hopper held out: the FSDP family's):
#: generation 10.0 % / 28.2 %.
#: With TensorRT-LLM v0.8-v0.9 running an FP8 mixture of experts' expert GEMMs at the 16-bit rate (its MoE plugin had
#: no FP8 GEMM before v0.10): 9.0 % / 27.3 %, 11.1 % / 30.4 %, 10.4 % / 32.4 %.
#: Both together: 9.0 % / 27.3 %, 11.1 % / 30.4 %, 9.9 % / 28.2 %. The source split's p90 limit is 0.28, not train2's
#: 0.27: the Mixtral FP8 figures no longer hold the pooled expert efficiency down, so SGLang's DeepSeek-R1 rows,
#: held out with their only source, take a higher pooled value (+28..+36 % at concurrency 32-64): a compensating
#: error removed, the term sourced (TensorRT-LLM v0.9's MoE plugin), not a constant loosened.
#: With a tensor-parallel decode step reading the KV cache each GPU holds (past the KV heads a copy per GPU; an MLA
#: latent whole on every GPU, as the memory split holds it): 9.0 % / 27.2 %, 11.7 % / 29.7 %, 9.9 % / 27.6 %.
#: With TensorRT-LLM v0.8-v0.9's expert GEMMs as Ampere mma.sync kernels on Hopper (2/3 of its tensor rate,
#: FlashAttention-3): 8.7 % / 25.4 %, 11.8 % / 29.9 %, 9.3 % / 27.3 % (source p90 limit lowered to it).
#: With the unfused elementwise traffic of eager PyTorch runs: 8.8 % / 26.7 %, 10.9 % / 29.8 %, 9.7 % / 27.3 %.
#: With the attention products timed at their fused kernel's efficiency (calculators.catalog.attention_kernels):
#: 8.9 % / 26.6 %, 10.6 % / 29.6 %, 9.5 % / 26.9 %.
#: With 18 new collectives figures scored at first contact (p5 EFA all-reduce and all-gather at 2-32 nodes, H100 ring
#: and NVLS by GPU count; n 408 -> 426): 9.0 % / 27.6 %, 11.2 % / 29.6 %, 10.2 % / 27.6 % (generation median limit
#: 0.10 -> 0.11: more figures, the model unchanged).
#: With Ethernet's collective efficiency derived (no link kind fitted): 9.0 % / 28.0 %, 11.7 % / 29.6 %, 10.2 % / 28.0 %.
#: With NVLink SHARP's efficiency by GPU count and generation (NCCL's nvlsEfficiency: Blackwell 0.74), the fits
#: refitted: 8.9 % / 27.2 %, 11.7 % / 29.4 %, 9.9 % / 27.6 % (limits back to 0.10 / 0.28 where they were raised).
#: With NCCL's own cross-node latency for the collectives that cross nodes (calculators.parallel.latency): 8.1 % / 25.3 %,
#: 10.9 % / 29.6 %, 9.1 % / 26.5 % (collectives 7.5 % / 34.2 % -> 4.5 % / 28.7 % in every split; no other category moves).
#: With whole-run GPU-hours from BigScience (BLOOM-176B) and MosaicML (MPT-7B) beside Meta's, and the bytes per FLOP
#: fitted on steady-state runs only (n 426 -> 428): 8.3 % / 25.5 %, 10.7 % / 28.8 %, 9.1 % / 26.5 %.
#: With whole-run GPU-hours from BLOOM and MPT-7B and one collective-time model for answers and scoring:
#: 8.0 % / 25.3 %, 10.7 % / 28.7 %, 8.9 % / 26.5 %.
#: With a held-out TensorRT-LLM paying the host launches its runs made (gptSessionBenchmark without CUDA graphs; its own
#: fitted cost per layer carries them, the pooled one of graph-replaying engines does not): 8.0 % / 25.3 %,
#: 10.4 % / 27.7 %, 8.9 % / 26.5 % (engine-out first token 19.9 % / 48.5 % -> 15.7 % / 45.6 %; engine p90 limit 0.28).
#: With a kernel's memory and compute times overlapped in part near the ridge (roofline.overlapped_s, p = 4 from
#: OpenXLA's measured GEMM kernels): 8.0 % / 25.3 %, 9.6 % / 27.3 %, 8.8 % / 26.4 % (first token engine-out
#: 15.7 % / 45.6 % -> 12.2 % / 32.0 %, generation-out 9.1 % / 32.4 % -> 9.9 % / 26.8 %; engine median limit 0.10).
#: With llama.cpp's measured fixed cost per layer on Metal (engine_kernels.LLAMA_CPP_METAL_S_PER_LAYER): 8.0 % / 25.1 %,
#: 9.5 % / 27.3 %, 8.8 % / 25.9 % (decode at batch 1 source-out 9.7 % / 29.7 % -> 8.3 % / 22.9 %, generation-out
#: 11.0 % / 29.3 % -> 10.5 % / 25.9 %; generation p90 limit 0.26).
LIMITS = {"source": (0.09, 0.26), "engine": (0.10, 0.28), "generation": (0.09, 0.26)}


@pytest.mark.parametrize("split", gen.SPLITS)
def test_each_split_does_not_regress(split: str) -> None:
    (overall,) = [item for item in gen.summary_by_split((split,)) if item["category"] == gen.OVERALL]
    median, p90 = LIMITS[split]
    assert overall["median"] <= median and overall["p90"] <= p90, overall


def test_leave_one_source_out_is_the_accuracy_page_score() -> None:
    # The source split is the score the rest of the page reports: the same figures, the same errors.
    expected = {str(r["figure_id"]): round(float(r["error"]), 9) for r in speed_accuracy.all_scored()}
    found = {str(r["figure_id"]): round(float(r["error"]), 9) for r in gen.scored_rows("source")}
    assert found == expected


@pytest.mark.parametrize("split", ["engine", "generation"])
def test_a_held_out_group_is_never_in_its_own_fit(split: str) -> None:
    from calculators.speed_accuracy.data import load_figures, scored
    from calculators.speed_accuracy.inference import held_out_fits
    from calculators.speed_accuracy.predict import prepare

    figures = scored(load_figures())
    group_of = gen._inference_group(split)
    groups = tuple(group_of(f) for f in figures)
    by_id = dict(zip((str(f["id"]) for f in figures), groups, strict=True))
    for (group, _engine), fits in held_out_fits([prepare(f) for f in figures], groups).items():
        for fit in fits:
            assert all(by_id[i] != group for ids in fit.fitted_on.values() for i in ids)


def test_leaving_an_engine_out_leaves_it_the_pooled_constants() -> None:
    # With every vLLM figure held out, vLLM's own fit has nothing to fit on: every constant is the pooled one, but its
    # host's cost per sequence, which no other engine pays: that is the documented HOST_S_PER_SEQUENCE (test below).
    from calculators.speed_accuracy.data import load_figures, scored
    from calculators.speed_accuracy.inference import held_out_fits
    from calculators.speed_accuracy.predict import prepare

    figures = scored(load_figures())
    groups = tuple(str(f["engine"]) for f in figures)
    pooled, engine = held_out_fits([prepare(f) for f in figures], groups)[("vllm", "vllm")]
    own = {name for name in engine.values if engine.values[name] != pooled.values[name]}
    assert own == {"sequence_overhead_s"} and not engine.fitted_on
    for group in ("tensorrt-llm", "llama.cpp", "mlx", "sglang"):  # no host-per-sequence or eager fact: all pooled
        pooled, engine = held_out_fits([prepare(f) for f in figures], groups)[(group, group)]
        assert engine.values == pooled.values and not engine.fitted_on, group


def test_training_software_groups_name_the_stack_not_its_settings() -> None:
    assert gen.training_engine({"framework": "torchtitan (FSDP2)"}) == gen.training_engine(
        {"framework": "torchtitan (FSDP2 + TP, torch.compile, Float8)"}) == "torchtitan"
    assert gen.training_engine({"framework": "NeMo (Megatron-Core, Transformer Engine)"}) == "Megatron-Core"


def test_every_held_out_row_names_its_group() -> None:
    for split in gen.SPLITS:
        for row in gen.scored_rows(split):
            expected = {"source": row["source_id"], "generation": hardware_generation(get_gpu(str(row["gpu"])))}
            if split in expected:
                assert row["group"] == expected[split]


# --------------------------------------------------------------------------- the answers' error bands
def test_error_bands_module_is_the_table_of_the_scores() -> None:
    # calculators/catalog/speed_error_bands.py is generated (scripts/score_generalisation.py --write-bands)
    from pathlib import Path

    from calculators.speed_accuracy.bands import bands_module_text

    path = Path(__file__).resolve().parents[2] / "calculators" / "catalog" / "speed_error_bands.py"
    assert path.read_text(encoding="utf-8") == bands_module_text(), "stale: run scripts/score_generalisation.py " \
                                                                    "--write-bands"


def _errors(split: str, **match: str) -> list[float]:
    rows = list(gen.scored_rows(split))
    if split == "source":  # the inference figures held out of every fit are estimated with their source out too
        rows += [row for row in held_out.held_out_rows() if "metric" in row]
    return [float(r["error"]) for r in rows
            if all((hardware_generation(get_gpu(str(r["gpu"]))) if k == "generation" else str(r[k])) == v
                   for k, v in match.items())]


def _band_of(errors: list[float]) -> tuple[int, float, float]:
    from calculators.speed_accuracy.errors import percentile

    return len(errors), round(percentile(errors, 0.1), 4), round(percentile(errors, 0.9), 4)


def test_a_seen_engine_on_a_seen_generation_gets_its_own_figures() -> None:
    from calculators.performance.error_bands import speed_error_band

    band = speed_error_band("batched_throughput", engine="vllm", gpu=get_gpu("mi300x"))
    assert band is not None and "vllm on AMD CDNA 3" in band.basis
    expected = _band_of(_errors("source", category="batched_throughput", engine="vllm", generation="cdna3"))
    assert (band.n, band.low, band.high) == expected


def test_an_engine_without_figures_gets_the_leave_one_engine_out_errors() -> None:
    from calculators.performance.error_bands import speed_error_band

    # no SGLang batch-1 decode figure is scored, fitted or held out; Hopper has decode figures
    band = speed_error_band("decode_batch1", engine="sglang", gpu=get_gpu("h100-sxm"))
    assert band is not None and band.basis.startswith("every engine held out")
    assert (band.n, band.low, band.high) == _band_of(_errors("engine", category="decode_batch1"))


def test_an_engine_with_prompt_figures_only_reads_them_for_its_first_token() -> None:
    from calculators.performance.error_bands import speed_error_band

    # llama.cpp publishes prompt rates (llama-bench pp), no first token: its prefill figures on Hopper (the held-out
    # H100 PCIe rows, each with its source out of every fit) set its first-token band there
    band = speed_error_band("time_to_first_token", engine="llama.cpp", gpu=get_gpu("h100-sxm"))
    assert band is not None and band.category == "prefill_throughput" and "no first-token figure" in band.basis
    assert (band.n, band.low, band.high) == _band_of(
        _errors("source", category="prefill_throughput", engine="llama.cpp", generation="hopper"))
    assert band.low > 0.3  # every such figure took longer than estimated (held-out first contact: +49..+69 %)


def test_a_generation_without_figures_gets_the_engines_leave_one_generation_out_errors() -> None:
    from calculators.performance.error_bands import speed_error_band

    band = speed_error_band("decode_batch1", engine="llama.cpp", gpu=get_gpu("mi300x"))  # no decode figure on CDNA 3
    assert band is not None and band.basis.startswith("llama.cpp's figures with their GPU generation held out")
    assert (band.n, band.low, band.high) == _band_of(_errors("generation", category="decode_batch1",
                                                             engine="llama.cpp"))


def test_the_generic_engine_carries_the_naive_rooflines_errors() -> None:
    from calculators.performance.error_bands import speed_error_band

    band = speed_error_band("decode_batch1", engine="generic", gpu=get_gpu("h100-sxm"))
    rows = [r for r in speed_accuracy.all_scored() if r["category"] == "decode_batch1"]
    assert band is not None and (band.n, band.low, band.high) == _band_of([float(r["naive_error"]) for r in rows])
    assert band.high > 1.0  # the naive roofline over-promises by more than 2x on a tenth of them


def test_every_speed_and_time_answer_carries_its_band() -> None:
    from calculators.catalog.models import get_model
    from calculators.performance.inference_speed import decode_step, inference_speed, prefill
    from calculators.performance.serving_load import Load, ServedModel, serving_load
    from calculators.performance.training_time import training_time

    spec, h100 = get_model("llama-3-8b"), get_gpu("h100-sxm")
    speed = inference_speed(spec, h100, engine="vllm", batch=4, context=1024)
    assert speed.first_step.error_band and speed.prefill.error_band and speed.generation_band
    assert speed.first_step.error_band.category == "batched_throughput"
    assert speed.prefill.error_band.category == "time_to_first_token"
    assert speed.to_dict()["generation_band"]["n"] == speed.generation_band.n
    from calculators.cli import run  # every face's answer states the bands

    speed_text = run(["speed", "--model", "llama-3-8b", "--gpu", "h100-sxm", "--engine", "vllm", "--batch", "4",
                      "--context", "1024"])[1]
    assert "Error band of the decode step" in speed_text and "Error band of the generation time" in speed_text
    assert decode_step(spec, h100, engine="vllm").error_band.category == "decode_batch1"  # type: ignore[union-attr]
    assert prefill(spec, h100, engine="vllm").error_band.category == "prefill_throughput"  # type: ignore[union-attr]
    load = serving_load(ServedModel.of(model=spec, gpu=h100, engine="vllm"), Load.of(concurrency=8))
    assert load.throughput_band and load.first_token_band
    assert "Error band of the inter-token latency" in run(["serve-load", "--model", "llama-3-8b", "--gpu", "h100-sxm",
                                                            "--engine", "vllm", "--concurrency", "8"])[1]
    run = training_time(spec, h100, tokens=10**9, gpus=8, check_memory=False)
    assert run.error_band is not None and run.error_band.category == "pre-training"
    lora = training_time(spec, h100, tokens=10**9, method="lora", check_memory=False)
    assert lora.error_band is not None and lora.error_band.category == "fine-tuning"
    lo, hi = run.error_band.time_range(run.time_s)
    assert lo <= run.time_s * (1 + run.error_band.low) + 1e-9 and hi == pytest.approx(run.time_s * (1 + run.error_band.high))


# --------------------------------------------------------------------------- causes behind the held-out errors
def test_a_request_costs_its_fixed_time_only_through_a_server() -> None:
    # TensorRT-LLM's gptSessionBenchmark and transformers' generate() run in the engine's own process: no HTTP front
    # end, no request cost. Only the closed-loop serving runs (a stated concurrency) carry one, and only they fit it.
    from calculators.catalog.gpus import get_gpu as gpu_of
    from calculators.catalog.models import get_model
    from calculators.performance.inference_speed import inference_speed
    from calculators.speed_accuracy.data import load_figures, scored
    from calculators.speed_accuracy.fit import fit_pooled
    from calculators.speed_accuracy.predict import model_time_s, prepare, served

    figures = {str(f["id"]): f for f in scored(load_figures())}
    for figure_id, expected_served in (("trt09-llama-2-7b-fp8-h200-tp1-ttft128", False),
                                       ("wmx-l4-qwen0.5b-c1-ttft", True)):
        figure = figures[figure_id]
        assert served(figure) is expected_served
        result = inference_speed(get_model(str(figure["model"])), gpu_of(str(figure["gpu"])), engine="vllm",
                                 weights=figure["weights"], kv_cache=figure["kv_cache"], batch=1,
                                 context=int(figure["input_tokens"]), new_tokens=1)
        assert result.request_overhead_s > 0.01  # vLLM's fitted server cost, tens of ms
        expected = result.prefill.time_s + (result.request_overhead_s if expected_served else 0.0)
        assert model_time_s(figure, "vllm") == pytest.approx(expected)
    fit = fit_pooled([prepare(f) for f in figures.values()])
    assert fit.fitted_on["request_overhead_s"] and all(served(figures[i]) for i in fit.fitted_on["request_overhead_s"])


def test_inference_compute_on_an_mi300x_is_timed_at_amds_measured_sustained_rate() -> None:
    # AMD's Table 1 (Measuring Max-Achievable FLOPs, part 2): 708 TFLOPS BF16 and 1,273 FP8 at the ~1.2 GHz the MI300X
    # holds under dense GEMMs; the datasheet's 1,307.4 and 2,614.9 are at the 2.1 GHz boost clock.
    from calculators.catalog.models import get_model
    from calculators.performance.inference_speed import inference_speed, prefill

    spec, mi300x = get_model("llama-3-8b"), get_gpu("mi300x")
    step = prefill(spec, mi300x, engine="generic", weights="bf16", context=4096)
    assert step.compute_time_s == pytest.approx(step.flops / (708e12 * 0.6))  # generic: 0.6 of the rate
    assert any("708 TFLOPS" in note for note in inference_speed(spec, mi300x, weights="bf16").notes)


def test_an_eager_engine_held_out_pays_pytorchs_measured_host_cost_per_layer() -> None:
    # PyTorch's team (GPT, Fast, 2023-11-30): Llama-2-7B at batch 1 on an A100-80GB, 25.5 tok/s in eager PyTorch
    # ("heavily CPU overhead bound"), 107.0 tok/s with the host cost removed (CUDA graphs): over its 32 layers,
    # (1 / 25.5 - 1 / 107.0) / 32 = 0.934 ms of host time per layer. With every transformers figure held out, its
    # fixed cost per layer is that, not the pooled value of the graph-replaying engines (85 us: 350-530 % too fast).
    from calculators.catalog.engines import get_engine
    from calculators.speed_accuracy.data import load_figures, scored
    from calculators.speed_accuracy.inference import held_out_fits
    from calculators.speed_accuracy.predict import prepare

    assert get_engine("transformers").eager_launches and not get_engine("vllm").eager_launches
    figures = scored(load_figures())
    groups = tuple(str(f["engine"]) for f in figures)
    pooled, engine = held_out_fits([prepare(f) for f in figures], groups)[("transformers", "transformers")]
    assert engine.values["step_overhead_s_per_layer"] == pytest.approx(0.934e-3, rel=0.002)
    assert pooled.values["step_overhead_s_per_layer"] < 0.2e-3
    for category in ("decode_batch1", "batched_throughput"):  # 527 % and 350 % (median) with the pooled value
        errors = sorted(abs(e) for e in _errors("engine", category=category, engine="transformers"))
        assert errors[len(errors) // 2] < 0.30, (category, errors)


def test_a_host_per_sequence_engine_held_out_pays_the_measured_host_time_per_sequence() -> None:
    # vLLM issue #6801 (Performance Roadmap, 2024-08-08): sampling, input preparation, output processing and scheduling
    # between two decode steps 'When BS is 200, all this together can be 20ms': 20e-3 / 200 = 100 us per sequence. With
    # every vLLM figure held out, its cost per sequence per step is that, not a start value no figure informs (1 us).
    from calculators.catalog.engines import HOST_S_PER_SEQUENCE, get_engine
    from calculators.speed_accuracy.data import load_figures, scored
    from calculators.speed_accuracy.inference import held_out_fits
    from calculators.speed_accuracy.predict import prepare

    assert HOST_S_PER_SEQUENCE == pytest.approx(20e-3 / 200)
    assert get_engine("vllm").host_work_per_sequence and not get_engine("sglang").host_work_per_sequence
    figures = scored(load_figures())
    groups = tuple(str(f["engine"]) for f in figures)
    _pooled, engine = held_out_fits([prepare(f) for f in figures], groups)[("vllm", "vllm")]
    assert engine.values["sequence_overhead_s"] == pytest.approx(100e-6)


def test_the_pooled_fixed_cost_per_layer_is_that_of_engines_replaying_cuda_graphs() -> None:
    # GRAPH_REPLAY_SOURCE: vLLM and SGLang replay a captured CUDA graph per decode step; TensorRT-LLM's published
    # tables (gptSessionBenchmark without --enable_cuda_graph) and eager transformers launch from their host and pay
    # a host cost on top. Held out, vLLM takes SGLang's figures' value, not one pulled up by the host-launching
    # engines (127 us before; vLLM's own figures give 77 us).
    from calculators.catalog.engines import POOLED, all_engines
    from calculators.speed_accuracy.data import load_figures, scored
    from calculators.speed_accuracy.inference import held_out_fits
    from calculators.speed_accuracy.predict import prepare

    replaying = {e.id for e in all_engines() if e.graph_replay}
    assert replaying == {"vllm", "sglang"}
    figures = {str(f["id"]): f for f in scored(load_figures())}
    assert {figures[i]["engine"] for i in POOLED.step_overhead_s_per_layer.fitted_on} == replaying
    groups = tuple(str(f["engine"]) for f in figures.values())
    pooled, engine = held_out_fits([prepare(f) for f in figures.values()], groups)[("vllm", "vllm")]
    assert engine.values["step_overhead_s_per_layer"] == pooled.values["step_overhead_s_per_layer"] < 90e-6
    errors = sorted(abs(e) for e in _errors("engine", category="batched_throughput", engine="vllm"))
    assert errors[len(errors) // 2] < 0.10, errors  # 15.9 % median with the pooled value of every engine


def test_llama_cpp_on_metal_pays_its_measured_fixed_cost_per_layer_not_the_fitted_one() -> None:
    # geerlingguy/ai-benchmarks issue #48: llama-bench on an 800 GB/s M1 Ultra, TinyLlama 1.1B Q4_K_M (636.18 MiB,
    # 22 layers) tg128 242.56 t/s: (1 / 242.56 - 636.18 MiB / 800 GB/s) / 22 = 149.5 us per layer, the whole fixed
    # cost of a step on Metal (no graph replay). A CUDA GPU keeps the fitted cost, which the Apple figures no longer
    # inform.
    from calculators.catalog.engines import get_engine
    from calculators.catalog.models import get_model
    from calculators.performance.inference_speed import decode_step
    from calculators.speed_accuracy.data import load_figures, scored
    from calculators.speed_accuracy.fit import fit_catalog
    from calculators.speed_accuracy.predict import prepare

    metal_s = (1 / 242.56 - 636.18 * 2**20 / 800e9) / 22
    spec, engine = get_model("llama-3.2-3b-instruct"), get_engine("llama.cpp")
    assert engine.metal_step_s_per_layer == pytest.approx(metal_s)
    on_mac = decode_step(spec, get_gpu("m3-ultra"), engine="llama.cpp", weights="q4_k_m", context=64)
    assert on_mac.overhead_time_s == pytest.approx(spec.num_layers * metal_s)
    on_cuda = decode_step(spec, get_gpu("rtx-4090"), engine="llama.cpp", weights="q4_k_m", context=64)
    assert on_cuda.overhead_time_s == pytest.approx(spec.num_layers * engine.value("step_overhead_s_per_layer"))
    figures = {str(f["id"]): f for f in scored(load_figures())}
    fitted_on = fit_catalog(prepare(f) for f in figures.values())["llama.cpp"].fitted_on["step_overhead_s_per_layer"]
    assert fitted_on and all(get_gpu(str(figures[i]["gpu"])).vendor != "Apple" for i in fitted_on)
    assert any(get_gpu(str(f["gpu"])).vendor == "Apple" and f["engine"] == "llama.cpp"
               and f["category"] == "decode_batch1" for f in figures.values())
