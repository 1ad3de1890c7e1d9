"""Tables of the Memory section (docs/memory/index.md, precision-and-optimizers.md, activations.md).

Every cell comes from :mod:`calculators.memory`: :func:`~calculators.memory.training.training_memory`
for peaks and breakdowns, :func:`~calculators.memory.optimizers.optimizer_bytes` for bytes
per parameter, :func:`~calculators.memory.activations.saved_bytes_per_token_per_layer` for
activations. Memory is in GiB (2^30 bytes) with two decimals unless a column says otherwise.

>>> table = TABLES["memory-bytes-per-param-phase"]()
>>> [row[:2] + row[-1:] for row in table.rows if row[0] == "bf16-mixed"]
[('bf16-mixed', 'forward', '14.0'), ('bf16-mixed', 'end of backward', '16.0'), ('bf16-mixed', 'optimizer step', '20.0')]
"""

from __future__ import annotations

from dataclasses import dataclass

from calculators.catalog.models import READ_ON, get_model
from calculators.dtypes import DType
from calculators.memory.activations import (
    ActivationLayout,
    checkpoint_bytes_per_token_per_layer,
    saved_bytes_per_token_per_layer,
)
from calculators.memory.inference import inference_memory
from calculators.memory.optimizers import OPTIMIZERS, optimizer_bytes
from calculators.memory.overhead import (
    CUBLAS_WORKSPACE_BYTES,
    CUDA_CONTEXT_BYTES,
    overhead_assumptions,
)
from calculators.memory.result import MemoryEstimate
from calculators.memory.training import (
    DEFAULT_LORA_TARGETS,
    TrainingSetup,
    activation_layout,
    training_memory,
    training_setup,
)
from calculators.model import ModelSpec
from calculators.tables import Table, TableFunction

GIB = 2**30
MIB = 2**20
PHASE_LETTER = {"forward": "f", "backward": "b", "optimizer": "o", "prefill": "p", "decode": "d"}
CATALOG = f"model shapes from the catalog as of {READ_ON}"
OVERHEAD = overhead_assumptions()[0]
STEP = ("one step of loss = model(ids, labels=ids).loss; loss.backward(); optimizer.step(); "
        "zero_grad(set_to_none=True), from the second step on (optimizer state exists)")
#: The model most tables use.
REFERENCE_MODEL = "llama-3-8b"


def _gib(value: float) -> str:
    return f"{value / GIB:.2f}"


def _pct(value: float) -> str:
    return f"{100 * value:.0f} %"


def _phase_cell(estimate: MemoryEstimate) -> str:
    return f"{_gib(estimate.peak_allocated_bytes)} {PHASE_LETTER[estimate.peak_phase]}"


def _describe(settings: dict[str, object], spec: ModelSpec | None = None) -> str:
    """A short label of a training configuration, e.g. ``full bf16-mixed adamw b1 s2048``."""
    setup = training_setup(**settings)  # type: ignore[arg-type]
    words = [setup.method, setup.precision, setup.optimizer, f"b{setup.batch}", f"s{setup.seq}"]
    if setup.attention != "sdpa":
        words.append(setup.attention)
    elif spec is not None and not spec.supports_sdpa:
        words.append("eager (forced)")
    if setup.grad_checkpointing:
        words.append("ckpt")
    if setup.method != "full":
        targets = "all-linear" if setup.lora_targets == DEFAULT_LORA_TARGETS else ",".join(setup.lora_targets)
        words.append(f"r{setup.lora_rank}:{targets}")
    if setup.grad_accumulation > 1:
        words.append(f"accum {setup.grad_accumulation}")
    if setup.gpus > 1:
        words.append(f"{setup.gpus} GPUs zero{setup.zero}")
    return " ".join(words)


def _param_bytes(precision: str) -> int:
    """Bytes per element of full fine-tuning's trainable weights, as the engine stores them."""
    return int(training_setup(method="full", precision=precision).base_dtype.bytes_per_element)


def _layout(setup: TrainingSetup) -> ActivationLayout:
    """The activation layout :func:`training_memory` uses for ``setup``."""
    return activation_layout(setup)


# --------------------------------------------------------------------------- index.md
#: Training jobs whose peak the overview page breaks down: (model id, settings).
BREAKDOWN_JOBS: tuple[tuple[str, dict[str, object]], ...] = (
    ("llama-3-8b", {"method": "full", "precision": "bf16-mixed", "batch": 1, "seq": 2048}),
    ("llama-3-8b", {"method": "full", "precision": "bf16", "batch": 4, "seq": 4096}),
    ("llama-3-8b", {"method": "lora", "precision": "bf16-mixed", "batch": 2, "seq": 2048}),
    ("llama-3-70b", {"method": "qlora", "precision": "bf16-mixed", "batch": 1, "seq": 4096,
                     "grad_checkpointing": True}),
    ("qwen2.5-0.5b", {"method": "full", "precision": "bf16-mixed", "batch": 4, "seq": 2048}),
    ("gemma-2-2b", {"method": "full", "precision": "bf16-mixed", "batch": 2, "seq": 2048}),
)


def _jobs() -> list[tuple[ModelSpec, str, MemoryEstimate]]:
    out = []
    for model_id, settings in BREAKDOWN_JOBS:
        spec = get_model(model_id)
        out.append((spec, _describe(settings, spec), training_memory(spec, **settings)))
    return out


def key_numbers_overview() -> Table:
    """Key numbers of the overview page."""
    spec = get_model(REFERENCE_MODEL)
    small = training_memory(spec, method="full", precision="bf16-mixed", batch=1, seq=512)
    pure = training_memory(spec, method="full", precision="bf16", batch=1, seq=512)
    job = training_memory(spec, method="full", precision="bf16-mixed", batch=1, seq=2048)
    rows = (
        ("full fine-tuning, bf16-mixed, foreach AdamW, small activations: peak per parameter",
         f"{small.peak_allocated_bytes / spec.parameters:.1f}", "bytes/param", "derived",
         "calculators.memory.training.training_memory"),
        ("same, pure bf16 weights and AdamW states",
         f"{pure.peak_allocated_bytes / spec.parameters:.1f}", "bytes/param", "derived",
         "calculators.memory.training.training_memory"),
        (f"{spec.name} full bf16-mixed AdamW b1 s2048: peak_allocated_bytes",
         _gib(job.peak_allocated_bytes), "GiB", "derived", "calculators.memory.training.training_memory"),
        (f"{spec.name}, same job: total_bytes", _gib(job.total_bytes), "GiB", "derived + assumed",
         "calculators.memory.overhead.runtime_overhead_bytes"),
        ("fixed overhead in total_bytes (CUDA context + cuBLAS workspace)",
         f"{(CUDA_CONTEXT_BYTES + CUBLAS_WORKSPACE_BYTES) / MIB:.0f}", "MiB", "assumed",
         "calculators.memory.overhead.runtime_overhead_bytes"),
    )
    return Table(
        id="memory-key-numbers",
        caption=("Key numbers of training memory. 'Small activations' is batch 1 x seq 512, where the "
                 "optimizer step decides the peak."),
        columns=("quantity", "value", "unit", "kind", "function"),
        align=("l", "r", "l", "l", "l"),
        rows=rows,
        assumptions=(STEP, "SDPA attention, no gradient checkpointing", OVERHEAD, CATALOG),
    )


def breakdown_table() -> Table:
    """What is live at the peak of a few training jobs."""
    rows = []
    for spec, label, estimate in _jobs():
        b = estimate.breakdown
        rows.append((
            spec.name, label, estimate.peak_phase,
            _gib(b.get("weights", 0)), _gib(b.get("gradients", 0)), _gib(b.get("optimizer_states", 0)),
            _gib(b.get("optimizer_step_temporaries", 0)), _gib(b.get("autocast_weight_copies", 0)),
            _gib(b.get("activations", 0)), _gib(b.get("transient_at_peak", 0)),
            _gib(estimate.peak_allocated_bytes), _gib(estimate.total_bytes),
        ))
    return Table(
        id="memory-breakdown",
        caption=("What is live at the peak of one training step (GiB). 'activations' are the tensors autograd "
                 "saved for backward (under checkpointing, one per layer); 'transient' is what the peak's moment "
                 "adds on top: the logits and loss tensors at the start of backward, the output head's gradient, "
                 "or the layer being recomputed. Columns sum to peak_allocated_bytes; total_bytes adds the "
                 "assumed overhead."),
        columns=("model", "job", "peak phase", "weights", "gradients", "optimizer states", "step temporaries",
                 "autocast copies", "activations", "transient", "peak allocated GiB", "total GiB"),
        align=("l", "l", "l") + ("r",) * 9,
        rows=tuple(rows),
        assumptions=(STEP, "SDPA attention, except Gemma 2, which transformers runs with eager attention (its "
                     "attention soft-capping)", "LoRA and QLoRA: rank 16 on all linear layers, fp32 adapters, AdamW",
                     "AdamW is the foreach implementation (PyTorch's CUDA default)", OVERHEAD, CATALOG),
    )


def phase_peaks_table() -> Table:
    """The peak of each phase for the breakdown jobs: the step's peak is their maximum."""
    rows = []
    for spec, label, estimate in _jobs():
        phases = estimate.phase_peaks
        rows.append((spec.name, label, _gib(phases["forward"]), _gib(phases["backward"]),
                     _gib(phases["optimizer"]), _gib(estimate.peak_allocated_bytes), estimate.peak_phase))
    return Table(
        id="memory-phase-peaks",
        caption=("Peak allocated memory of each phase of one training step (GiB); the step's "
                 "peak_allocated_bytes is the largest of the three, not their sum."),
        columns=("model", "job", "forward", "backward", "optimizer step", "peak allocated GiB", "peak phase"),
        align=("l", "l", "r", "r", "r", "r", "l"),
        rows=tuple(rows),
        assumptions=(STEP, "SDPA attention (Gemma 2: eager, forced by soft-capping); AdamW foreach", CATALOG),
    )


def bytes_per_param_by_phase() -> Table:
    """Model-state bytes per parameter held in each phase of full fine-tuning with foreach AdamW."""
    rows = []
    autocast_bytes = DType.BF16.bytes_per_element
    for precision in ("fp32", "bf16-mixed", "bf16"):
        p = _param_bytes(precision)
        opt = optimizer_bytes(optimizer="adamw", param_bytes=p)
        copies = autocast_bytes if precision.endswith("-mixed") else 0.0
        phases = (
            ("forward", p, 0.0, opt.state_bytes_per_param, 0.0, copies),
            ("end of backward", p, float(p), opt.state_bytes_per_param, 0.0, 0.0),
            ("optimizer step", p, float(p), opt.state_bytes_per_param, opt.step_temp_bytes_per_param, 0.0),
        )
        for phase, w, g, s, t, c in phases:
            rows.append((precision, phase, f"{w:.1f}", f"{g:.1f}", f"{s:.1f}", f"{t:.1f}", f"{c:.1f}",
                         f"{w + g + s + t + c:.1f}"))
    return Table(
        id="memory-bytes-per-param-phase",
        caption=("Bytes per parameter of model state held in each phase of full fine-tuning with foreach AdamW "
                 "(activations excluded). Forward is a step after the first (moments exist, gradients were freed "
                 "by zero_grad(set_to_none=True)); autocast copies are 2 bytes per parameter of a matmul weight "
                 "(every linear layer and the output head, not the embedding or norms)."),
        columns=("precision", "phase", "weights", "gradients", "optimizer states", "step temporaries",
                 "autocast copies", "sum (bytes/param)"),
        align=("l", "l") + ("r",) * 6,
        rows=tuple(rows),
        assumptions=("derived from calculators.memory.optimizers.optimizer_bytes and the precision's parameter "
                     "bytes (fp32 master weights for fp32 and -mixed, 2 bytes for pure bf16)",),
    )


#: Inference requests the overview page breaks down: (model id, settings).
INFERENCE_JOBS: tuple[tuple[str, dict[str, object]], ...] = (
    ("llama-3-8b", {"weights": "bf16", "kv_cache": "bf16", "batch": 1, "context": 8192}),
    ("llama-3-8b", {"weights": "bf16", "kv_cache": "bf16", "batch": 8, "context": 8192}),
    ("llama-3-70b", {"weights": "int4", "kv_cache": "fp8", "batch": 1, "context": 32768}),
)


def inference_breakdown_table() -> Table:
    """What is live at the peak of serving a batch."""
    rows = []
    for model_id, settings in INFERENCE_JOBS:
        spec = get_model(model_id)
        estimate = inference_memory(spec, **settings)
        b = estimate.breakdown
        label = (f"weights {settings['weights']}, KV {settings['kv_cache']}, b{settings['batch']} "
                 f"ctx {settings['context']}")
        rows.append((spec.name, label, estimate.peak_phase, _gib(b.get("weights", 0)), _gib(b.get("kv_cache", 0)),
                     _gib(b.get("activations_and_logits", 0)), _gib(estimate.peak_allocated_bytes),
                     _gib(estimate.total_bytes)))
    return Table(
        id="memory-inference-breakdown",
        caption=("What is live at the peak of serving a batch (GiB): weights, the KV cache of the whole prompt, "
                 "and the temporaries of the layer being computed plus the last position's logits."),
        columns=("model", "request", "peak phase", "weights", "KV cache", "activations and logits",
                 "peak allocated GiB", "total GiB"),
        align=("l", "l", "l") + ("r",) * 5,
        rows=tuple(rows),
        assumptions=("one prefill forward over the prompt, no new tokens, SDPA attention",
                     "int4: quantised linear weights with group-128 scales; embeddings and head stay bf16",
                     OVERHEAD, CATALOG),
    )


# --------------------------------------------------------------------------- precision-and-optimizers.md
PRECISION_GROUPS = (("fp32", "fp32"), ("bf16-mixed / fp16-mixed", "bf16-mixed"), ("bf16 / fp16", "bf16"))


def _adafactor_state_per_param(precision: str) -> float:
    spec = get_model(REFERENCE_MODEL)
    estimate = training_memory(spec, method="full", precision=precision, optimizer="adafactor", batch=1, seq=1)
    return estimate.breakdown["optimizer_states"] / spec.parameters


def key_numbers_precision() -> Table:
    """Key numbers of the precision and optimizer page."""
    spec = get_model(REFERENCE_MODEL)

    def per_param(**settings: object) -> str:
        estimate = training_memory(spec, method="full", batch=1, seq=512, **settings)
        return f"{estimate.peak_allocated_bytes / spec.parameters:.1f}"

    bf16 = training_memory(spec, method="full", precision="bf16-mixed", batch=1, seq=2048)
    fp16 = training_memory(spec, method="full", precision="fp16-mixed", batch=1, seq=2048)
    fn = "calculators.memory.training.training_memory"
    rows = (
        ("fp32 master weights, foreach AdamW (bf16-mixed)", per_param(precision="bf16-mixed"), "bytes/param", fn),
        ("fp32 master weights, fused AdamW", per_param(precision="bf16-mixed", optimizer="adamw-fused"),
         "bytes/param", fn),
        ("fp32 master weights, 8-bit AdamW", per_param(precision="bf16-mixed", optimizer="adamw-8bit"),
         "bytes/param", fn),
        ("pure bf16 weights and states, foreach AdamW", per_param(precision="bf16"), "bytes/param", fn),
        (f"fp16-mixed minus bf16-mixed, {spec.name} b1 s2048",
         _gib(fp16.peak_allocated_bytes - bf16.peak_allocated_bytes), "GiB", fn),
    )
    return Table(
        id="memory-precision-key-numbers",
        caption=(f"Peak allocated memory of full fine-tuning per parameter of {spec.name}, batch 1 x seq 512 "
                 "(activations small), by precision and optimizer; derived."),
        columns=("quantity", "value", "unit", "function"),
        align=("l", "r", "l", "l"),
        rows=rows,
        assumptions=(STEP, "SDPA attention, no gradient checkpointing", CATALOG),
    )


def bytes_per_param_grid() -> Table:
    """Weights + gradients + optimizer state + step temporaries, per parameter, per precision and optimizer."""
    rows = []
    for label, precision in PRECISION_GROUPS:
        p = _param_bytes(precision)
        for optimizer in OPTIMIZERS:
            opt = optimizer_bytes(optimizer=optimizer, param_bytes=p)
            state = _adafactor_state_per_param(precision) if optimizer == "adafactor" else opt.state_bytes_per_param
            total = p + p + state + opt.step_temp_bytes_per_param
            rows.append((label, optimizer, f"{p:.2f}", f"{p:.2f}", f"{state:.3f}",
                         f"{opt.step_temp_bytes_per_param:.2f}", f"{total:.2f}"))
    return Table(
        id="memory-bytes-per-param-grid",
        caption=("Bytes per trainable parameter during the optimizer step of full fine-tuning: weights + gradients "
                 "+ optimizer state + the step's temporaries. This is the optimizer phase only; the step's peak "
                 "may be in backward instead (activations, logits), and mixed precision adds 2 bytes per matmul "
                 "parameter of autocast copies in forward and backward."),
        columns=("precision", "optimizer", "weights", "gradients", "optimizer state", "step temporaries",
                 "sum (bytes/param)"),
        align=("l", "l") + ("r",) * 5,
        rows=tuple(rows),
        assumptions=("derived from calculators.memory.optimizers.optimizer_bytes",
                     f"Adafactor's factored state (a row and a column per matrix) is taken from {REFERENCE_MODEL}'s "
                     "shapes; it is a per-matrix, not a per-parameter, cost",
                     "8-bit moments: blocks of 256 values with one fp32 scale each",
                     "paged 8-bit AdamW counted on the GPU (it can page to host RAM under pressure)"),
    )


PRECISIONS_SHOWN = ("fp32", "bf16-mixed", "fp16-mixed", "bf16", "fp16")


def precision_optimizer_peaks() -> Table:
    """Peak allocated memory of one model across precision x optimizer."""
    spec = get_model(REFERENCE_MODEL)
    rows = []
    for optimizer in OPTIMIZERS:
        cells = [_phase_cell(training_memory(spec, method="full", precision=precision, optimizer=optimizer,
                                             batch=1, seq=2048)) for precision in PRECISIONS_SHOWN]
        rows.append((optimizer, *cells))
    return Table(
        id="memory-precision-optimizer-peaks",
        caption=(f"Peak allocated memory (GiB) of full fine-tuning of {spec.name}, batch 1 x seq 2048, by optimizer "
                 "and precision. The letter is the phase of the peak: f forward, b backward, o optimizer step."),
        columns=("optimizer", *(f"{p} GiB" for p in PRECISIONS_SHOWN)),
        align=("l",) + ("r",) * len(PRECISIONS_SHOWN),
        rows=tuple(rows),
        assumptions=(STEP, "SDPA attention, no gradient checkpointing", CATALOG),
    )


@dataclass(frozen=True)
class Claim:
    """A sizing claim quoted from a source guide, as bytes per parameter or as a GB range."""

    source: str
    claim: str
    precision: str  # the calculators' precision compared with it
    low: float
    high: float
    unit: str  # "bytes/param" or "GB" (decimal, for the reference model's size class)


CLAIMS: tuple[Claim, ...] = (
    Claim("VRLA Tech, ML workstation requirements", "FP32 training: ~4x the parameter count in GB", "fp32",
          4, 4, "bytes/param"),
    Claim("VRLA Tech, ML workstation requirements", "mixed precision (FP16/BF16): ~2x", "bf16-mixed",
          2, 2, "bytes/param"),
    Claim("VRLA Tech, LLM fine-tuning VRAM", "~16x the model size at FP32", "fp32", 16, 16, "bytes/param"),
    Claim("VRLA Tech, LLM fine-tuning VRAM", "6-8x at mixed precision", "bf16-mixed", 6, 8, "bytes/param"),
    Claim("VRLA Tech, LLM fine-tuning VRAM", "7B class (incl. Llama 3 8B), full FP32: 112-140 GB", "fp32",
          112, 140, "GB"),
    Claim("VRLA Tech, LLM fine-tuning VRAM", "7B class (incl. Llama 3 8B), full FP16: 60-80 GB", "fp16",
          60, 80, "GB"),
    Claim("TheoremPath, Hardware for ML Practitioners", "Adam, mixed precision: at least 16 bytes/param",
          "bf16-mixed", 16, 16, "bytes/param"),
    Claim("Lyceum Technology (citing VESSL AI)", "FP16 + Adam: ~18 bytes/param", "bf16-mixed", 18, 18,
          "bytes/param"),
)


def source_claims_table() -> Table:
    """The source guides' training-memory rules against the calculators, for the reference model."""
    spec = get_model(REFERENCE_MODEL)
    rows = []
    for claim in CLAIMS:
        if claim.unit == "GB":
            low, high = claim.low * 1e9, claim.high * 1e9
        else:
            low, high = claim.low * spec.parameters, claim.high * spec.parameters
        claimed = _gib(low) if low == high else f"{_gib(low)}-{_gib(high)}"
        estimate = training_memory(spec, method="full", precision=claim.precision, batch=1, seq=2048)
        peak = estimate.peak_allocated_bytes
        ratio = peak / high
        rows.append((claim.source, claim.claim, claimed, claim.precision, _gib(peak),
                     f"{peak / spec.parameters:.1f}", f"{ratio:.2f}"))
    return Table(
        id="memory-source-claims",
        caption=(f"Training-memory rules quoted from the source guides, applied to {spec.name} "
                 f"({spec.parameters / 1e9:.2f}B parameters), against the calculators' peak_allocated_bytes for full "
                 "fine-tuning at batch 1 x seq 2048 with foreach AdamW. Multiples are read as bytes per parameter; "
                 "GB as 10^9 bytes. 'calculators / claim' divides the calculators' peak by the claim's upper end."),
        columns=("source", "claim (quoted or condensed)", "claim GiB", "compared precision", "calculators GiB",
                 "calculators bytes/param", "calculators / claim"),
        align=("l", "l", "r", "l", "r", "r", "r"),
        rows=tuple(rows),
        assumptions=(STEP, "SDPA attention, no gradient checkpointing", CATALOG,
                     "claims read 2026-11-21 from the guides listed under Sources"),
    )


# --------------------------------------------------------------------------- activations.md
#: Training configurations whose per-layer activations the activations page lists.
LAYOUT_JOBS: tuple[tuple[str, dict[str, object]], ...] = (
    ("full fp32", {"method": "full", "precision": "fp32"}),
    ("full bf16-mixed", {"method": "full", "precision": "bf16-mixed"}),
    ("full bf16", {"method": "full", "precision": "bf16"}),
    ("LoRA bf16-mixed, all-linear r16", {"method": "lora", "precision": "bf16-mixed"}),
    ("LoRA bf16-mixed, q,v r16", {"method": "lora", "precision": "bf16-mixed", "lora_targets": "q,v"}),
    ("QLoRA bf16-mixed, all-linear r16", {"method": "qlora", "precision": "bf16-mixed"}),
)
LAYOUT_SEQ = 2048


def saved_per_token_table() -> Table:
    """Saved bytes per token per decoder layer, by precision and method."""
    spec = get_model(REFERENCE_MODEL)
    rows = []
    for label, settings in LAYOUT_JOBS:
        setup = training_setup(seq=LAYOUT_SEQ, **settings)  # type: ignore[arg-type]
        layout = _layout(setup)
        parts = saved_bytes_per_token_per_layer(spec, layout=layout, seq=LAYOUT_SEQ)
        eager = saved_bytes_per_token_per_layer(spec, layout=_with_attention(layout, "eager"), seq=LAYOUT_SEQ)
        rows.append((label, f"{parts.norms:,}", f"{parts.linear_inputs:,}", f"{parts.attention:,}",
                     f"{parts.mlp:,}", f"{parts.lora:,}", f"{parts.total:,}", f"{eager.total:,}",
                     f"{checkpoint_bytes_per_token_per_layer(layout=layout, spec=spec):,}"))
    return Table(
        id="memory-activations-per-token",
        caption=(f"Bytes per token that one decoder layer of {spec.name} keeps for backward, by part; 'eager' is the "
                 f"same layer with eager attention at seq {LAYOUT_SEQ}; 'checkpointed' is what gradient "
                 "checkpointing keeps instead (the layer's input). Multiply by tokens (batch x seq) and layers."),
        columns=("job", "norms", "linear inputs", "attention", "MLP", "LoRA", "total, SDPA",
                 f"total, eager s{LAYOUT_SEQ}", "checkpointed"),
        align=("l",) + ("r",) * 8,
        rows=tuple(rows),
        assumptions=("from calculators.memory.activations.saved_bytes_per_token_per_layer, bytes per token per "
                     "layer", "LoRA adapters fp32 (PEFT default); LoRA base bf16, QLoRA base NF4",
                     f"{spec.hidden_size} hidden, {spec.num_attention_heads} query heads, "
                     f"{spec.num_kv_heads} KV heads, {spec.intermediate_size} MLP width",
                     CATALOG),
    )


def _with_attention(layout: ActivationLayout, attention: str) -> ActivationLayout:
    return ActivationLayout(
        compute_bytes=layout.compute_bytes, residual_bytes=layout.residual_bytes, autocast=layout.autocast,
        trainable_base=layout.trainable_base, lora_targets=layout.lora_targets, lora_rank=layout.lora_rank,
        adapter_bytes=layout.adapter_bytes, attention=attention)


BATCHES = (1, 2, 4, 8)
SEQS = (1024, 2048, 4096, 8192)
FULL_JOB: dict[str, object] = {"method": "full", "precision": "bf16"}
LORA_JOB: dict[str, object] = {"method": "lora", "precision": "bf16-mixed"}


def batch_seq_table() -> Table:
    """Peak vs batch and sequence length, with and without gradient checkpointing."""
    spec = get_model(REFERENCE_MODEL)
    rows = []
    for batch in BATCHES:
        for seq in SEQS:
            cells = [_phase_cell(training_memory(spec, batch=batch, seq=seq, grad_checkpointing=ckpt, **job))
                     for job in (FULL_JOB, LORA_JOB) for ckpt in (False, True)]
            rows.append((str(batch), str(seq), f"{batch * seq:,}", *cells))
    return Table(
        id="memory-activations-batch-seq",
        caption=(f"Peak allocated memory (GiB) of one training step of {spec.name} by micro-batch and sequence "
                 "length, with and without gradient checkpointing. Full: pure bf16 weights and AdamW states; "
                 "LoRA: bf16 base, rank 16 on all linear layers, bf16 autocast. The letter is the phase of the "
                 "peak: f forward, b backward, o optimizer step."),
        columns=("batch", "seq", "tokens", "full GiB", "full + ckpt GiB", "LoRA GiB", "LoRA + ckpt GiB"),
        align=("l", "r", "r", "r", "r", "r", "r"),
        rows=tuple(rows),
        assumptions=(STEP, "SDPA attention; AdamW foreach", CATALOG),
    )


ATTENTION_SEQS = (512, 1024, 2048, 4096, 8192, 16384)


def attention_table() -> Table:
    """Eager attention against SDPA/FlashAttention: saved activations and peak, by sequence length."""
    spec = get_model(REFERENCE_MODEL)
    rows = []
    for seq in ATTENTION_SEQS:
        setup = training_setup(seq=seq, **LORA_JOB)  # type: ignore[arg-type]
        layout = _layout(setup)
        per_layer = {att: saved_bytes_per_token_per_layer(spec, layout=_with_attention(layout, att), seq=seq).total
                     for att in ("sdpa", "eager")}
        saved = {att: per_layer[att] * spec.num_layers * seq for att in per_layer}
        peak = {att: training_memory(spec, seq=seq, attention=att, **LORA_JOB).peak_allocated_bytes
                for att in ("sdpa", "eager")}
        rows.append((f"{seq:,}", _gib(saved["eager"]), _gib(saved["sdpa"]), _pct(1 - saved["sdpa"] / saved["eager"]),
                     _gib(peak["eager"]), _gib(peak["sdpa"]), _pct(1 - peak["sdpa"] / peak["eager"])))
    return Table(
        id="memory-activations-attention",
        caption=(f"Eager attention against SDPA (FlashAttention or memory-efficient kernel) for LoRA on {spec.name}, "
                 "batch 1: activations saved by all decoder layers, and the step's peak_allocated_bytes (GiB). "
                 "'saving' is the share SDPA removes."),
        columns=("seq", "saved, eager GiB", "saved, SDPA GiB", "activation saving", "peak, eager GiB",
                 "peak, SDPA GiB", "peak saving"),
        align=("r",) * 7,
        rows=tuple(rows),
        assumptions=(STEP, "bf16 base, rank 16 on all linear layers, fp32 adapters, bf16 autocast, AdamW",
                     f"{spec.num_attention_heads} query heads; eager keeps an fp32 softmax and its bf16 copy "
                     "(seq x seq per head)", CATALOG),
    )


LEVER_BASE: dict[str, object] = {"method": "full", "precision": "bf16", "batch": 8, "seq": 2048}
LEVERS: tuple[tuple[str, dict[str, object]], ...] = (
    ("baseline", {}),
    ("micro-batch 2, no accumulation (for comparison)", {"batch": 2}),
    ("gradient accumulation: batch 2 x 4 micro-batches", {"batch": 2, "grad_accumulation": 4}),
    ("gradient accumulation: batch 1 x 8 micro-batches", {"batch": 1, "grad_accumulation": 8}),
    ("gradient checkpointing", {"grad_checkpointing": True}),
    ("eager attention instead of SDPA", {"attention": "eager"}),
    ("fused AdamW", {"optimizer": "adamw-fused"}),
    ("8-bit AdamW", {"optimizer": "adamw-8bit"}),
    ("8 GPUs, DDP", {"gpus": 8, "zero": 0}),
    ("8 GPUs, ZeRO-1", {"gpus": 8, "zero": 1}),
    ("8 GPUs, ZeRO-3 / FSDP", {"gpus": 8, "zero": 3}),
    ("8 GPUs, ZeRO-3 + gradient checkpointing", {"gpus": 8, "zero": 3, "grad_checkpointing": True}),
)


def levers_table() -> Table:
    """What each memory lever does to one job's peak."""
    spec = get_model(REFERENCE_MODEL)
    base = training_memory(spec, **LEVER_BASE).peak_allocated_bytes
    rows = []
    for label, change in LEVERS:
        settings = {**LEVER_BASE, **change}
        estimate = training_memory(spec, **settings)
        peak = estimate.peak_allocated_bytes
        rows.append((label, _describe(settings), _gib(peak), estimate.peak_phase, f"{100 * (peak / base - 1):+.0f} %"))
    return Table(
        id="memory-activations-levers",
        caption=(f"One lever at a time on full fine-tuning of {spec.name} (pure bf16, AdamW, batch 8 x seq 2048): "
                 "peak_allocated_bytes per GPU (GiB) and its change against the baseline."),
        columns=("lever", "job", "peak allocated GiB", "peak phase", "change"),
        align=("l", "l", "r", "l", "r"),
        rows=tuple(rows),
        assumptions=(STEP, "SDPA attention unless stated; AdamW foreach unless stated",
                     "DDP keeps a bucketed copy of the gradients; ZeRO-1 shards optimizer state and step "
                     "temporaries, ZeRO-3 also gradients and weights", CATALOG),
    )


LOGIT_MODELS = ("llama-2-7b", "mistral-7b-v0.3", "llama-3.2-1b", "llama-3-8b", "qwen2.5-0.5b", "qwen2.5-7b")


def logits_table() -> Table:
    """fp32 logits per token against all decoder layers' saved activations per token."""
    rows = []
    for model_id in LOGIT_MODELS:
        spec = get_model(model_id)
        setup = training_setup(**LORA_JOB)  # type: ignore[arg-type]
        layers = saved_bytes_per_token_per_layer(spec, layout=_layout(setup), seq=setup.seq).total * spec.num_layers
        # At the start of backward three fp32 logits-sized tensors are live: the log-softmax
        # cross-entropy saved, and the two fp32 tensors of the loss gradient.
        loss = 3 * DType.FP32.bytes_per_element * spec.vocab_size
        rows.append((spec.name, f"{spec.vocab_size:,}", str(spec.num_layers), f"{layers / MIB:.2f}",
                     f"{loss / MIB:.2f}", _pct(loss / layers)))
    rows.sort(key=lambda row: (int(row[1].replace(",", "")), row[0]))
    return Table(
        id="memory-activations-logits",
        caption=("Per token: what all decoder layers save for backward (LoRA, bf16 autocast, all-linear r16, SDPA) "
                 "against the three fp32 vocabulary-sized tensors live at the start of backward (MiB per token)."),
        columns=("model", "vocabulary", "layers", "layers' activations MiB/token", "fp32 loss tensors MiB/token",
                 "loss / layers"),
        align=("l", "r", "r", "r", "r", "r"),
        rows=tuple(rows),
        assumptions=("loss tensors: 3 x 4 bytes x vocabulary (the log-softmax saved by cross-entropy and the two "
                     "fp32 logits-sized tensors of its gradient), as in calculators.memory.training",
                     CATALOG),
    )


def key_numbers_activations() -> Table:
    """Key numbers of the activations page."""
    spec = get_model(REFERENCE_MODEL)
    mixed = _layout(training_setup(method="full", precision="bf16-mixed"))
    per_layer = saved_bytes_per_token_per_layer(spec, layout=mixed, seq=LAYOUT_SEQ).total
    ckpt = checkpoint_bytes_per_token_per_layer(layout=mixed, spec=spec)
    lora = _layout(training_setup(seq=4096, **LORA_JOB))  # type: ignore[arg-type]
    sdpa = saved_bytes_per_token_per_layer(spec, layout=lora, seq=4096).total
    eager = saved_bytes_per_token_per_layer(spec, layout=_with_attention(lora, "eager"), seq=4096).total
    fn = "calculators.memory.activations.saved_bytes_per_token_per_layer"
    rows = (
        (f"{spec.name}, full bf16-mixed, SDPA: saved per token per layer", f"{per_layer / 1024:.1f}", "KiB", fn),
        ("same, gradient checkpointing: kept per token per layer", f"{ckpt / 1024:.1f}", "KiB",
         "calculators.memory.activations.checkpoint_bytes_per_token_per_layer"),
        (f"{spec.name}, full bf16-mixed, SDPA: saved per token, all {spec.num_layers} layers",
         f"{per_layer * spec.num_layers / MIB:.2f}", "MiB", fn),
        (f"{spec.name}, LoRA, seq 4096: share of eager attention's saved activations that SDPA avoids",
         f"{100 * (1 - sdpa / eager):.0f}", "%", fn),
    )
    return Table(
        id="memory-activations-key-numbers",
        caption="Key numbers of activation memory; derived.",
        columns=("quantity", "value", "unit", "function"),
        align=("l", "r", "l", "l"),
        rows=rows,
        assumptions=(f"seq {LAYOUT_SEQ} unless stated", "LoRA: bf16 base, all-linear rank 16, fp32 adapters",
                     CATALOG),
    )


def optimizer_formulas_table() -> Table:
    """Table ``memory-optimizer-formulas``: the rule behind each optimizer's bytes per parameter."""
    from calculators.memory.optimizers import OPTIMIZER_FORMULAS, OPTIMIZERS

    rows = tuple((f"`{name}`", OPTIMIZERS[name].split(":")[0], state, temp)
                 for name, (state, temp) in OPTIMIZER_FORMULAS.items())
    return Table(
        id="memory-optimizer-formulas",
        caption=("Persistent state and step temporaries per trainable parameter, as "
                 "calculators.memory.optimizers.optimizer_bytes computes them; p is the parameter's bytes "
                 "per element (4 for fp32 master weights, 2 for a pure 16-bit model). Formulas, not measurements."),
        columns=("optimizer", "implementation", "state per parameter", "step temporary per parameter"),
        align=("l", "l", "l", "l"),
        rows=rows,
    )


TABLES: dict[str, TableFunction] = {
    "memory-optimizer-formulas": optimizer_formulas_table,
    "memory-key-numbers": key_numbers_overview,
    "memory-breakdown": breakdown_table,
    "memory-phase-peaks": phase_peaks_table,
    "memory-bytes-per-param-phase": bytes_per_param_by_phase,
    "memory-inference-breakdown": inference_breakdown_table,
    "memory-precision-key-numbers": key_numbers_precision,
    "memory-bytes-per-param-grid": bytes_per_param_grid,
    "memory-precision-optimizer-peaks": precision_optimizer_peaks,
    "memory-source-claims": source_claims_table,
    "memory-activations-key-numbers": key_numbers_activations,
    "memory-activations-per-token": saved_per_token_table,
    "memory-activations-batch-seq": batch_seq_table,
    "memory-activations-attention": attention_table,
    "memory-activations-levers": levers_table,
    "memory-activations-logits": logits_table,
}
