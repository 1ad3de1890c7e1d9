"""Claims about weights, inference memory, quantisation, parameter counts and mixture of experts.

Our figures come from :func:`calculators.memory.weights.weight_bytes` (quantised formats
keep embeddings, head and norms 16-bit), :func:`calculators.memory.inference.inference_memory`
(weights + KV cache + prefill activations + runtime overhead), the model catalog's exact
parameter counts, and :func:`calculators.performance.inference_speed.decode_step`.
Inference defaults: batch 1, a 4096-token context, bf16 KV cache.

>>> [c.id for c in claims()][0]
'hfp-7b-inference-24gb'
"""

from __future__ import annotations

from calculators.catalog.gpus import get_gpu
from calculators.catalog.models import get_model
from calculators.catalog.usable_memory import apple_working_set_bytes
from calculators.claims.figures import (
    F_INFER,
    F_MODEL,
    F_WEIGHTS,
    HFP,
    LYCEUM,
    MODEL_7B,
    PAGE_HARDWARE,
    PAGE_INFERENCE,
    PAGE_LORA,
    PAGE_MOE,
    PAGE_QUANT,
    VRLA_FT,
    VRLA_WS,
    figure,
    gb,
    gib,
    gpus_to_serve,
    inference,
    name,
)
from calculators.claims.record import APPROX_TOLERANCE, EXACT_TOLERANCE, Claim, Figure
from calculators.dtypes import DType
from calculators.fit import footprint_on, verdict_for
from calculators.memory.lora import lora_parameters
from calculators.memory.weights import quantized_bytes_per_element, weight_bytes
from calculators.performance.inference_speed import decode_step

_ALL_LINEAR = ("q", "k", "v", "o", "gate", "up", "down")


def _weights_gb(model: str, dtype: str) -> float:
    return gb(weight_bytes(get_model(model), dtype=dtype))


def _weights_and_total(model: str, **settings: object) -> Figure:
    dtype = str(settings.get("weights", "bf16"))
    return figure([("weights only", _weights_gb(model, dtype)),
                   ("total, batch 1, 4096-token context", gb(inference(model, **settings).total_bytes))],
                  "GB", F_INFER, PAGE_INFERENCE)


def _largest_fitting_int4(ram_gib: float) -> Figure:
    """Largest catalog model (parameters) whose int4 inference at a 4096-token context *fits* a Mac with ``ram_gib``.

    The GPU gets macOS's default working set of the unified memory
    (:func:`calculators.catalog.usable_memory.apple_working_set_bytes`) and carries no CUDA
    context; the verdict is :func:`calculators.fit.verdict_for`.
    """
    usable = apple_working_set_bytes(int(ram_gib * 2**30))
    mac = get_gpu("m4-max")  # any Apple record: the footprint rule (no CUDA terms) is the same
    best = 0.0
    label = "none"
    for model in ("llama-3.2-3b", "qwen2.5-7b", "qwen2.5-14b", "qwen2.5-32b", "yi-34b", "llama-3-70b"):
        fits = verdict_for(*footprint_on(inference(model, weights="int4"), mac), usable).fits
        if fits and get_model(model).parameters / 1e9 > best:
            best, label = get_model(model).parameters / 1e9, name(model)
    return figure([(f"largest that fits: {label}", best)], "B params", F_INFER, PAGE_QUANT)


def _decode_ratio() -> Figure:
    gpu = get_gpu("h200")
    cases = []
    for batch in (1, 32):
        moe = decode_step(get_model("mixtral-8x7b"), gpu, batch=batch, context=4096).time_s
        dense = decode_step(get_model("qwen2.5-14b"), gpu, batch=batch, context=4096).time_s
        cases.append((f"batch {batch}", moe / dense))
    return figure(cases, "x a 14B's step", "calculators.performance.inference_speed.decode_step", PAGE_MOE)


def claims() -> tuple[Claim, ...]:
    """Every inference, quantisation and parameter claim, in source order."""
    seventy = "llama-2-70b"
    return (
        Claim(id="hfp-7b-inference-24gb", source=HFP, section="VRAM Bottleneck", subject="inference",
              quote="You can run inference on a 7B model (with quantization)",
              conditions=f"{name(MODEL_7B)} on a 24 GB RTX 3090, batch 1, 4096-token context",
              low=24, high=24, unit="GiB", bound="at most",
              figure=lambda: figure([(w, gib(inference(MODEL_7B, weights=w).total_bytes))
                                     for w in ("int4", "int8", "bf16")], "GiB", F_INFER, PAGE_INFERENCE),
              why="It fits quantised, and in bf16 too: 7B x 2 B is 13.5 GB plus a small KV cache."),
        Claim(id="hfp-macbook-36gb-30b", source=HFP, section="Operating System", subject="inference",
              quote="a MacBook Pro with 36 GB RAM can run inference on models up to about 30B parameters (quantized)",
              conditions=("int4 weights (GPTQ/AWQ-style), batch 1, 4096-token context; the GPU gets macOS's default "
                          "working set of the 36 GiB (two thirds: 24 GiB) and no CUDA context; 'fits' as the fit "
                          "verdict decides"),
              low=30, high=30, unit="B params",
              figure=lambda: _largest_fitting_int4(36.0),
              why="int4 is 0.5 B per linear weight plus group scales: a 30-34B model fits 36 GB, a 70B model does not."),
        Claim(id="lyceum-fp16-2-bytes", source=LYCEUM, section="Standard VRAM Calculations", subject="inference",
              quote="For inference using FP16 precision, multiply your parameter count by two bytes",
              conditions=f"{name(MODEL_7B)}; bytes per parameter of the weights and of the whole request",
              low=2, high=2, unit="B/param",
              figure=lambda: figure([("weights only", weight_bytes(get_model(MODEL_7B), dtype="fp16")
                                      / get_model(MODEL_7B).parameters),
                                     ("total, batch 1, 4096-token context", inference(MODEL_7B, weights="fp16")
                                      .total_bytes / get_model(MODEL_7B).parameters)],
                                    "B/param", F_INFER, PAGE_INFERENCE),
              why="2 B/param is the weights; the KV cache and runtime overhead come on top (the guide adds them later)."),
        Claim(id="lyceum-fp16-table", source=LYCEUM, section="Standard VRAM Calculations", subject="inference",
              quote="Parameters x 2 bytes", conditions="as lyceum-fp16-2-bytes", low=2, high=2, unit="B/param",
              figure=lambda: figure([("weights only", weight_bytes(get_model(MODEL_7B), dtype="fp16")
                                      / get_model(MODEL_7B).parameters)], "B/param", F_WEIGHTS, PAGE_INFERENCE),
              why="Definition of a 16-bit weight: 2 bytes."),
        Claim(id="lyceum-7b-14gb", source=LYCEUM, section="Standard VRAM Calculations", subject="inference",
              quote="A 7B parameter model requires approximately 14 GB of VRAM",
              conditions=f"{name(MODEL_7B)} in fp16, batch 1, 4096-token context",
              low=14, high=14, unit="GB",
              figure=lambda: _weights_and_total(MODEL_7B, weights="fp16"),
              why="The weights are 13.5 GB; a 4096-token request adds the KV cache and runtime overhead."),
        Claim(id="lyceum-70b-140gb", source=LYCEUM, section="Standard VRAM Calculations", subject="inference",
              quote="a 70B model needs about 140 GB", conditions=f"{name(seventy)} in fp16, batch 1, 4096 tokens",
              low=140, high=140, unit="GB",
              figure=lambda: _weights_and_total(seventy, weights="fp16"),
              why="69B x 2 B is 138 GB; grouped-query attention keeps the KV cache of one request small."),
        Claim(id="lyceum-int8-1-byte", source=LYCEUM, section="Standard VRAM Calculations", subject="inference",
              quote="If you use INT8 quantization, the requirement drops to one byte per parameter",
              conditions="int8 weights for the linear layers; embeddings, head and norms stay 16-bit",
              low=1, high=1, unit="B/param",
              figure=lambda: figure([(name(m), weight_bytes(get_model(m), dtype="int8") / get_model(m).parameters)
                                     for m in (MODEL_7B, "llama-3-8b", "llama-3-70b")], "B/param", F_WEIGHTS, PAGE_QUANT),
              why="Linear layers drop to 1 B; the 16-bit embeddings and head add a few percent, more for big vocabularies."),
        Claim(id="lyceum-int8-table", source=LYCEUM, section="Standard VRAM Calculations", subject="inference",
              quote="Parameters x 1 byte", conditions="as lyceum-int8-1-byte", low=1, high=1, unit="B/param",
              figure=lambda: figure([(name(m), weight_bytes(get_model(m), dtype="int8") / get_model(m).parameters)
                                     for m in (MODEL_7B, "llama-3-8b")], "B/param", F_WEIGHTS, PAGE_QUANT),
              why="As above: the linear layers are 1 B/param, the rest stays 16-bit."),
        Claim(id="lyceum-7b-on-l40s", source=LYCEUM, section="Over-Provisioning for Intermittent Inference",
              subject="inference", quote="deploy an A100 or H100 for a 7B parameter model",
              conditions=f"a 7B model ({name(MODEL_7B)}, bf16) fits a 48 GB L40S instead; 4096-token context",
              low=48, high=48, unit="GiB", bound="at most",
              figure=lambda: figure([(f"batch {b}", gib(inference(MODEL_7B, batch=b).total_bytes))
                                     for b in (1, 8, 32)], "GiB", F_INFER, PAGE_INFERENCE),
              why=("A 7B model needs a fraction of 80 GB at low concurrency; only many long requests (the KV "
                   "cache of Llama 2 7B has no grouped-query sharing) outgrow a 48 GB card.")),
        Claim(id="lyceum-moe-56b-vram", source=LYCEUM, section="Miscalculating Mixture of Experts (MoE)",
              subject="parameters", quote="A model might have 8x7B parameters, requiring the VRAM of a 56B model",
              conditions=f"{name('mixtral-8x7b')}: total parameters (all experts, attention, embeddings)",
              low=56, high=56, unit="B params",
              figure=lambda: figure([(name("mixtral-8x7b"), get_model("mixtral-8x7b").parameters / 1e9)],
                                    "B params", F_MODEL, PAGE_MOE, kind="derived"),
              why="Only the MLP experts are replicated eight times; attention, embeddings and norms are shared."),
        Claim(id="lyceum-moe-14b-active", source=LYCEUM, section="Miscalculating Mixture of Experts (MoE)",
              subject="parameters", quote="it only activates 14B parameters during generation",
              conditions=f"{name('mixtral-8x7b')}: parameters used per token (2 of 8 experts per layer)",
              low=14, high=14, unit="B params",
              figure=lambda: figure([(name("mixtral-8x7b"), get_model("mixtral-8x7b").active_parameters / 1e9)],
                                    "B params", "calculators.model.ModelSpec.active_parameters", PAGE_MOE),
              why="Two 7B 'experts' would be 14B, but the shared attention and embeddings are counted once."),
        Claim(id="lyceum-moe-speed-14b", source=LYCEUM, section="Miscalculating Mixture of Experts (MoE)",
              subject="parameters", quote="you can expect inference speeds closer to a 14B model",
              conditions=(f"decode step time of {name('mixtral-8x7b')} over dense {name('qwen2.5-14b')} on one H200, "
                          "bf16, 4096-token context"),
              low=1, high=1, unit="x a 14B's step", figure=_decode_ratio,
              why="At batch 1 a token reads two experts per layer; a large batch touches most experts each step."),
        Claim(id="lyceum-70b-140gb-fp16", source=LYCEUM, section="Shrinking Inference Requirements",
              subject="inference", quote="A 70B parameter model that normally requires 140 GB of VRAM in FP16",
              conditions="as lyceum-70b-140gb", low=140, high=140, unit="GB",
              figure=lambda: _weights_and_total(seventy, weights="fp16"), why="As above."),
        Claim(id="lyceum-70b-int8-one-a100", source=LYCEUM, section="Shrinking Inference Requirements",
              subject="inference", quote="can fit onto a single 80 GB A100 when quantized to INT8",
              conditions=f"{name('llama-3-70b')}, int8 weights, bf16 KV cache",
              low=80, high=80, unit="GiB", bound="at most",
              figure=lambda: figure([(f"batch {b}, {c}-token context", gib(inference(
                  "llama-3-70b", weights="int8", batch=b, context=c).total_bytes))
                  for b, c in ((1, 4096), (1, 32768), (8, 8192))], "GiB", F_INFER, PAGE_QUANT),
              why="About 71 GB of weights leaves room for a few short requests, not for long or many."),
        Claim(id="lyceum-int8-halves-cost", source=LYCEUM, section="Shrinking Inference Requirements",
              subject="cost", quote="This cuts your hardware costs in half",
              conditions=("A100 80GB count for Llama 3 70B in int8 over the count in bf16, batch 1, 4096 tokens, "
                          "memory split evenly across GPUs"),
              low=0.5, high=0.5, unit="x GPUs",
              figure=lambda: figure([("int8 / bf16 GPU count", gpus_to_serve(
                  "llama-3-70b", gpu="a100-80gb-sxm", weights="int8") / gpus_to_serve(
                  "llama-3-70b", gpu="a100-80gb-sxm", weights="bf16"))],
                  "x GPUs", "calculators.claims.figures.gpus_to_serve", PAGE_QUANT),
              why="Two 80 GB cards in bf16 against one in int8: the GPU count halves."),
        Claim(id="vrla-llama3-7b-params", source=VRLA_FT, section="Why VRAM is the primary constraint in LLM "
              "fine-tuning", subject="parameters", quote="LLaMA 3 7B has 7 billion parameters",
              conditions="the smallest Llama 3 model is Llama 3 8B; exact parameter count from its config",
              low=7, high=7, unit="B params",
              figure=lambda: figure([(name("llama-3-8b"), get_model("llama-3-8b").parameters / 1e9)],
                                    "B params", F_MODEL, PAGE_HARDWARE),
              why="No 'LLaMA 3 7B' was released; Llama 3 8B has a 128k vocabulary and 8.03B parameters."),
        Claim(id="vrla-7b-weights-14gb", source=VRLA_FT, section="Why VRAM is the primary constraint in LLM "
              "fine-tuning", subject="inference",
              quote="At 2 bytes per parameter in FP16, that is 14GB for the weights alone",
              conditions="fp16 weights of the model the sentence names",
              low=14, high=14, unit="GB",
              figure=lambda: figure([("7.0B parameters exactly", 7e9 * DType.FP16.bytes_per_element / 1e9),
                                     (name("llama-3-8b"), _weights_gb("llama-3-8b", "fp16"))],
                                    "GB", F_WEIGHTS, PAGE_INFERENCE),
              why="Right arithmetic for 7.0B parameters; the Llama 3 model it means has 8.03B."),
        Claim(id="vrla-lora-0.1-1pct", source=VRLA_FT, section="LoRA fine-tuning", subject="parameters",
              quote="typically 0.1–1% of total parameters",
              conditions=f"LoRA adapters on {name('llama-3-8b')} by rank and target modules",
              low=0.1, high=1, unit="% of parameters",
              figure=lambda: figure([(f"rank {r}, {label}", 100 * lora_parameters(
                  get_model("llama-3-8b"), rank=r, targets=t) / get_model("llama-3-8b").parameters)
                  for r, label, t in ((8, "q,v", ("q", "v")), (16, "all linear", _ALL_LINEAR),
                                      (64, "all linear", _ALL_LINEAR))],
                  "% of parameters", "calculators.memory.lora.lora_parameters", PAGE_LORA),
              why="Rank x (in + out) per adapted matrix: low ranks on all linears land in range, rank 64 goes past."),
        Claim(id="vrla-4bit-0.5-bytes", source=VRLA_FT, section="QLoRA fine-tuning", subject="inference",
              quote="approximately 0.5 bytes per parameter", conditions="NF4 with double-quantised block scales",
              low=0.5, high=0.5, unit="B/param",
              figure=lambda: figure([("NF4 per quantised weight", quantized_bytes_per_element(DType.NF4))],
                                    "B/param", "calculators.memory.weights.quantized_bytes_per_element", PAGE_QUANT),
              why="4 bits plus about 0.127 bits of scales per weight (QLoRA paper)."),
        Claim(id="vrla-4bit-75pct-smaller", source=VRLA_FT, section="QLoRA fine-tuning", subject="inference",
              quote="reduces the base model VRAM footprint by approximately 75% compared to FP16",
              conditions="NF4 weights against bf16 weights; embeddings, head and norms stay 16-bit",
              low=75, high=75, unit="%",
              figure=lambda: figure([(name(m), 100 * (1 - weight_bytes(get_model(m), dtype="nf4")
                                                      / weight_bytes(get_model(m), dtype="bf16")))
                                     for m in ("llama-3-8b", "llama-3-70b")], "%", F_WEIGHTS, PAGE_QUANT),
              why="The 16-bit embeddings and head are a large share of small models with big vocabularies."),
        Claim(id="vrla-70b-nf4-35-40gb", source=VRLA_FT, section="Fine-tuning 70B models — QLoRA",
              subject="inference", quote="4-bit quantization of the base model consuming approximately 35–40GB",
              conditions="NF4 weights of the 70B models the guide names", low=35, high=40, unit="GB",
              figure=lambda: figure([(name(m), _weights_gb(m, "nf4")) for m in ("llama-3-70b", "qwen2.5-72b")],
                                    "GB", F_WEIGHTS, PAGE_LORA),
              why="70B x 0.52 B plus 16-bit embeddings and head."),
        Claim(id="vrla-70b-remaining-56-61gb", source=VRLA_FT, section="Fine-tuning 70B models — QLoRA",
              subject="inference", quote="the remaining 56–61GB of VRAM",
              conditions="RTX PRO 6000 memory minus the NF4 weights of Llama 3 70B, in GB",
              low=56, high=61, unit="GB",
              figure=lambda: figure([("96 GiB card", gb(get_gpu("rtx-pro-6000-blackwell").memory_bytes)
                                      - _weights_gb("llama-3-70b", "nf4"))], "GB", F_WEIGHTS, PAGE_LORA),
              why="Subtraction; the card's 96 GB are GiB (103 GB), which leaves a little more."),
        Claim(id="vrla-ws-inference-70b-fp8", source=VRLA_WS, section="VRAM requirements by ML task in 2026",
              subject="inference", quote="Inference 70B (FP8) | 70B params | 70GB",
              conditions=f"{name('llama-3-70b')}, fp8 weights, bf16 KV cache, batch 1",
              low=70, high=70, unit="GB",
              figure=lambda: figure([("weights only", _weights_gb("llama-3-70b", "fp8"))]
                                    + [(f"total, {c}-token context", gb(inference(
                                        "llama-3-70b", weights="fp8", context=c).total_bytes)) for c in (4096, 32768)],
                                    "GB", F_INFER, PAGE_QUANT),
              why="70B x 1 B is the weights; any request adds its KV cache and the runtime overhead."),
    )
