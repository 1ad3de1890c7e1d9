"""Tables of the Memory overview (docs/memory/index.md), with the formats the Memory pages share.

The precision-and-optimizers page's tables are in :mod:`calculators.doc_tables.memory_precision`,
the activations page's in :mod:`calculators.doc_tables.memory_activations`. Every cell comes from :mod:`calculators.memory`: :func:`~calculators.memory.training.training_memory`
for peaks and breakdowns, :func:`~calculators.memory.optimizers.optimizer_bytes` for bytes
per parameter, :func:`~calculators.memory.activations.saved_bytes_per_token_per_layer` for
activations. Memory is in GiB (2^30 bytes) with two decimals unless a column says otherwise.

>>> table = bytes_per_param_by_phase()
>>> [row[:2] + row[-1:] for row in table.rows if row[0] == "bf16-mixed"]
[('bf16-mixed', 'forward', '14.0'), ('bf16-mixed', 'end of backward', '16.0'), ('bf16-mixed', 'optimizer step', '20.0')]
"""

from __future__ import annotations

from calculators.catalog.models import READ_ON, get_model
from calculators.columns import Column, decimal_column, gib_column
from calculators.dtypes import DType
from calculators.memory.inference import inference_memory
from calculators.memory.optimizers import optimizer_bytes
from calculators.memory.overhead import CUDA_CONTEXT_BYTES, CUDA_WORKSPACE_BYTES, runtime_overhead_bytes
from calculators.memory.result import MemoryEstimate
from calculators.memory.training import training_memory
from calculators.memory.training_inputs import DEFAULT_LORA_TARGETS, training_setup
from calculators.model import ModelSpec
from calculators.tables import Table, TableFunction, computed_by, declared_tables, table
from calculators.units import MIB, gib, number

PHASE_LETTER = {"forward": "f", "backward": "b", "optimizer": "o", "prefill": "p", "decode": "d"}
CATALOG = f"model shapes from the catalog as of {READ_ON}"
STEP = ("one step of loss = model(ids, labels=ids).loss; loss.backward(); optimizer.step(); "
        "zero_grad(set_to_none=True), from the second step on (optimizer state exists)")
#: The model most tables use.
REFERENCE_MODEL = "llama-3-8b"


def phase_cell(estimate: MemoryEstimate) -> str:
    """Peak GiB and the letter of its phase, e.g. ``'16.02 o'`` for a peak in the optimizer step."""
    return f"{gib(estimate.peak_allocated_bytes, grouped=False)} {PHASE_LETTER[estimate.peak_phase]}"


def describe_job(settings: dict[str, object], spec: ModelSpec | None = None) -> str:
    """A short label of a training configuration, e.g. ``full bf16-mixed adamw b1 s2048``."""
    setup = training_setup(**settings)
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


def trainable_bytes_per_element(precision: str) -> int:
    """Bytes per element of full fine-tuning's trainable weights, as the engine stores them."""
    return int(training_setup(method="full", precision=precision).base_dtype.bytes_per_element)


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
        out.append((spec, describe_job(settings, spec), training_memory(spec, **settings)))
    return out


@table("memory-key-numbers")
def key_numbers_overview() -> Table:
    """Key numbers of the overview page."""
    spec = get_model(REFERENCE_MODEL)
    small = training_memory(spec, method="full", precision="bf16-mixed", batch=1, seq=512)
    pure = training_memory(spec, method="full", precision="bf16", batch=1, seq=512)
    job = training_memory(spec, method="full", precision="bf16-mixed", batch=1, seq=2048)
    rows = (
        ("full fine-tuning, bf16-mixed, foreach AdamW, small activations: peak per parameter",
         number(small.peak_allocated_bytes / spec.parameters, 1), "bytes/param", "derived", training_memory),
        ("same, pure bf16 weights and AdamW states",
         number(pure.peak_allocated_bytes / spec.parameters, 1), "bytes/param", "derived", training_memory),
        (f"{spec.name} full bf16-mixed AdamW b1 s2048: peak_allocated_bytes",
         gib(job.peak_allocated_bytes, grouped=False), "GiB", "derived", training_memory),
        (f"{spec.name}, same job: total_bytes", gib(job.total_bytes, grouped=False), "GiB", "derived + measured",
         runtime_overhead_bytes),
        ("fixed overhead in total_bytes (CUDA context) and in the peak (cuBLAS workspaces)",
         number((CUDA_CONTEXT_BYTES + CUDA_WORKSPACE_BYTES) / MIB), "MiB", "measured", runtime_overhead_bytes),
    )
    # A memory estimate states the runtime overhead last among its assumptions.
    return Table.key_numbers(
        rows, columns=("quantity", "value", "unit", "kind", "function"), dotted=True, code=False,
        caption=("Key numbers of training memory. 'Small activations' is batch 1 x seq 512, where the optimizer step "
                 "decides the peak."),
        assumptions=(STEP, "SDPA attention, no gradient checkpointing", job.overhead_assumption, CATALOG))


@table("memory-breakdown")
def breakdown_table() -> Table:
    """What is live at the peak of a few training jobs."""
    terms = ("weights", "gradients", "optimizer_states", "optimizer_step_temporaries", "autocast_weight_copies",
             "activations", "transient_at_peak")
    rows = []
    for spec, label, estimate in _jobs():
        rows.append((spec.name, label, estimate.peak_phase, *(estimate.breakdown.get(term, 0) for term in terms),
                     estimate.peak_allocated_bytes, estimate.total_bytes))
    return Table.of(
        caption=("What is live at the peak of one training step (GiB). 'activations' are the tensors autograd "
                 "saved for backward (under checkpointing, one per layer); 'transient' is what the peak's moment "
                 "adds on top: the logits and loss tensors at the start of backward, the output head's gradient, "
                 "or the layer being recomputed. Columns sum to peak_allocated_bytes; total_bytes adds the "
                 "assumed overhead."),
        columns=(Column("model"), Column("job"), Column("peak phase"),
                 *map(gib_column, ("weights", "gradients", "optimizer states", "step temporaries", "autocast copies",
                                   "activations", "transient", "peak allocated GiB", "total GiB"))),
        rows=rows,
        assumptions=(STEP, "SDPA attention, except Gemma 2, which transformers runs with eager attention (its "
                     "attention soft-capping)", "LoRA and QLoRA: rank 16 on all linear layers, fp32 adapters, AdamW",
                     "AdamW is the foreach implementation (PyTorch's CUDA default)", estimate.overhead_assumption, CATALOG),
    )


@table("memory-phase-peaks")
def phase_peaks_table() -> Table:
    """The peak of each phase for the breakdown jobs: the step's peak is their maximum."""
    rows = [(spec.name, label, *(estimate.phase_peaks[phase] for phase in ("forward", "backward", "optimizer")),
             estimate.peak_allocated_bytes, estimate.peak_phase) for spec, label, estimate in _jobs()]
    return Table.of(
        caption=("Peak allocated memory of each phase of one training step (GiB); the step's "
                 "peak_allocated_bytes is the largest of the three, not their sum."),
        columns=(Column("model"), Column("job"),
                 *map(gib_column, ("forward", "backward", "optimizer step", "peak allocated GiB")), Column("peak phase")),
        rows=rows,
        assumptions=(STEP, "SDPA attention (Gemma 2: eager, forced by soft-capping); AdamW foreach", CATALOG),
    )


@table("memory-bytes-per-param-phase")
def bytes_per_param_by_phase() -> Table:
    """Model-state bytes per parameter held in each phase of full fine-tuning with foreach AdamW."""
    rows = []
    autocast_bytes = DType.BF16.bytes_per_element
    for precision in ("fp32", "bf16-mixed", "bf16"):
        p = trainable_bytes_per_element(precision)
        opt = optimizer_bytes(optimizer="adamw", param_bytes=p)
        copies = autocast_bytes if precision.endswith("-mixed") else 0.0
        phases = (
            ("forward", p, 0.0, opt.state_bytes_per_param, 0.0, copies),
            ("end of backward", p, float(p), opt.state_bytes_per_param, 0.0, 0.0),
            ("optimizer step", p, float(p), opt.state_bytes_per_param, opt.step_temp_bytes_per_param, 0.0),
        )
        rows += [(precision, phase, w, g, s, t, c, w + g + s + t + c) for phase, w, g, s, t, c in phases]
    return Table.of(
        caption=("Bytes per parameter of model state held in each phase of full fine-tuning with foreach AdamW "
                 "(activations excluded). Forward is a step after the first (moments exist, gradients were freed "
                 "by zero_grad(set_to_none=True)); autocast copies are 2 bytes per parameter of a matmul weight "
                 "(every linear layer and the output head, not the embedding or norms)."),
        columns=(Column("precision"), Column("phase"),
                 *map(decimal_column, ("weights", "gradients", "optimizer states", "step temporaries", "autocast copies",
                                       "sum (bytes/param)"))),
        rows=rows,
        assumptions=(f"derived from {computed_by(optimizer_bytes, dotted=True, code=False)} and the precision's "
                     "parameter bytes (fp32 master weights for fp32 and -mixed, 2 bytes for pure bf16)",),
    )


#: Inference requests the overview page breaks down: (model id, settings).
INFERENCE_JOBS: tuple[tuple[str, dict[str, object]], ...] = (
    ("llama-3-8b", {"weights": "bf16", "kv_cache": "bf16", "batch": 1, "context": 8192}),
    ("llama-3-8b", {"weights": "bf16", "kv_cache": "bf16", "batch": 8, "context": 8192}),
    ("llama-3-70b", {"weights": "int4", "kv_cache": "fp8", "batch": 1, "context": 32768}),
)


@table("memory-inference-breakdown")
def inference_breakdown_table() -> Table:
    """What is live at the peak of serving a batch."""
    rows = []
    for model_id, settings in INFERENCE_JOBS:
        spec = get_model(model_id)
        estimate = inference_memory(spec, **settings)
        label = (f"weights {settings['weights']}, KV {settings['kv_cache']}, b{settings['batch']} "
                 f"ctx {settings['context']}")
        rows.append((spec.name, label, estimate.peak_phase,
                     *(estimate.breakdown.get(term, 0) for term in ("weights", "kv_cache", "activations_and_logits")),
                     estimate.peak_allocated_bytes, estimate.total_bytes))
    return Table.of(
        caption=("What is live at the peak of serving a batch (GiB): weights, the KV cache of the whole prompt, "
                 "and the temporaries of the layer being computed plus the last position's logits."),
        columns=(Column("model"), Column("request"), Column("peak phase"),
                 *map(gib_column, ("weights", "KV cache", "activations and logits", "peak allocated GiB", "total GiB"))),
        rows=rows,
        assumptions=("one prefill forward over the prompt, no new tokens, SDPA attention",
                     "int4: quantised linear weights with group-128 scales; embeddings and head stay bf16",
                     estimate.overhead_assumption, CATALOG),
    )


TABLES: dict[str, TableFunction] = declared_tables(globals())
