"""Tables of the activations page (docs/memory/activations.md) and of its page on the levers that shrink them
(docs/memory/activation-levers.md: memory-activations-attention, memory-activations-levers).

Saved bytes per token come from
:func:`calculators.memory.activations.saved_bytes_per_token_per_layer`, peaks from
:func:`calculators.memory.training.training_memory`; memory is in GiB (2^30 bytes) unless a
column says MiB or KiB.

>>> [row[0] for row in logits_table().rows][:2]
['Llama 2 7B', 'Mistral 7B v0.3']
"""

from __future__ import annotations

from dataclasses import replace

from calculators.catalog.models import get_model
from calculators.columns import Column, decimal_column, gib_column, number_column, percent_column
from calculators.doc_tables.memory import CATALOG, REFERENCE_MODEL, STEP, describe_job, phase_cell
from calculators.dtypes import DType
from calculators.memory.activations import checkpoint_bytes_per_token_per_layer, saved_bytes_per_token_per_layer
from calculators.memory.training import activation_layout, training_memory
from calculators.memory.training_inputs import training_setup
from calculators.tables import Table, TableFunction, computed_by, declared_tables, table
from calculators.units import KIB, MIB, number, signed_percent

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


@table("memory-activations-per-token")
def saved_per_token_table() -> Table:
    """Saved bytes per token per decoder layer, by precision and method."""
    spec = get_model(REFERENCE_MODEL)
    rows = []
    for label, settings in LAYOUT_JOBS:
        setup = training_setup(seq=LAYOUT_SEQ, **settings)
        layout = activation_layout(setup)
        parts = saved_bytes_per_token_per_layer(spec, layout=layout, seq=LAYOUT_SEQ)
        eager = saved_bytes_per_token_per_layer(spec, layout=replace(layout, attention="eager"), seq=LAYOUT_SEQ)
        rows.append((label, parts.norms, parts.linear_inputs, parts.attention, parts.mlp, parts.lora, parts.total,
                     eager.total, checkpoint_bytes_per_token_per_layer(layout=layout, spec=spec)))
    return Table.of(
        caption=(f"Bytes per token that one decoder layer of {spec.name} keeps for backward, by part; 'eager' is the "
                 f"same layer with eager attention at seq {LAYOUT_SEQ}; 'checkpointed' is what gradient "
                 "checkpointing keeps instead (the layer's input). Multiply by tokens (batch x seq) and layers."),
        columns=(Column("job"), *map(number_column, ("norms", "linear inputs", "attention", "MLP", "LoRA",
                                                     "total, SDPA", f"total, eager s{LAYOUT_SEQ}", "checkpointed"))),
        rows=rows,
        assumptions=(f"from {computed_by(saved_bytes_per_token_per_layer, dotted=True, code=False)}, bytes per "
                     "token per layer", "LoRA adapters fp32 (PEFT default); LoRA base bf16, QLoRA base NF4",
                     f"{spec.hidden_size} hidden, {spec.num_attention_heads} query heads, "
                     f"{spec.num_kv_heads} KV heads, {spec.intermediate_size} MLP width",
                     CATALOG),
    )


BATCHES = (1, 2, 4, 8)
SEQS = (1024, 2048, 4096, 8192)
FULL_JOB: dict[str, object] = {"method": "full", "precision": "bf16"}
LORA_JOB: dict[str, object] = {"method": "lora", "precision": "bf16-mixed"}


@table("memory-activations-batch-seq")
def batch_seq_table() -> Table:
    """Peak vs batch and sequence length, with and without gradient checkpointing."""
    spec = get_model(REFERENCE_MODEL)
    rows = []
    for batch in BATCHES:
        for seq in SEQS:
            peaks = [training_memory(spec, batch=batch, seq=seq, grad_checkpointing=ckpt, **job)
                     for job in (FULL_JOB, LORA_JOB) for ckpt in (False, True)]
            rows.append((batch, seq, batch * seq, *peaks))
    return Table.of(
        caption=(f"Peak allocated memory (GiB) of one training step of {spec.name} by micro-batch and sequence "
                 "length, with and without gradient checkpointing. Full: pure bf16 weights and AdamW states; "
                 "LoRA: bf16 base, rank 16 on all linear layers, bf16 autocast. The letter is the phase of the "
                 "peak: f forward, b backward, o optimizer step."),
        columns=(Column("batch"), Column("seq", align="r"), number_column("tokens"),
                 *(Column(name, phase_cell, "r") for name in ("full GiB", "full + ckpt GiB", "LoRA GiB",
                                                              "LoRA + ckpt GiB"))),
        rows=rows,
        assumptions=(STEP, "SDPA attention; AdamW foreach", CATALOG),
    )


ATTENTION_SEQS = (512, 1024, 2048, 4096, 8192, 16384)


@table("memory-activations-attention")
def attention_table() -> Table:
    """Eager attention against SDPA/FlashAttention: saved activations and peak, by sequence length."""
    spec = get_model(REFERENCE_MODEL)
    rows = []
    for seq in ATTENTION_SEQS:
        setup = training_setup(seq=seq, **LORA_JOB)
        layout = activation_layout(setup)
        per_layer = {att: saved_bytes_per_token_per_layer(spec, layout=replace(layout, attention=att), seq=seq).total
                     for att in ("sdpa", "eager")}
        saved = {att: per_layer[att] * spec.num_layers * seq for att in per_layer}
        peak = {att: training_memory(spec, seq=seq, attention=att, **LORA_JOB).peak_allocated_bytes
                for att in ("sdpa", "eager")}
        rows.append((seq, saved["eager"], saved["sdpa"], 1 - saved["sdpa"] / saved["eager"],
                     peak["eager"], peak["sdpa"], 1 - peak["sdpa"] / peak["eager"]))
    return Table.of(
        caption=(f"Eager attention against SDPA (FlashAttention or memory-efficient kernel) for LoRA on {spec.name}, "
                 "batch 1: activations saved by all decoder layers, and the step's peak_allocated_bytes (GiB). "
                 "'saving' is the share SDPA removes."),
        columns=(number_column("seq"), gib_column("saved, eager GiB"), gib_column("saved, SDPA GiB"),
                 percent_column("activation saving"), gib_column("peak, eager GiB"), gib_column("peak, SDPA GiB"),
                 percent_column("peak saving")),
        rows=rows,
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


@table("memory-activations-levers")
def levers_table() -> Table:
    """What each memory lever does to one job's peak."""
    spec = get_model(REFERENCE_MODEL)
    base = training_memory(spec, **LEVER_BASE).peak_allocated_bytes
    rows = []
    for label, change in LEVERS:
        settings = {**LEVER_BASE, **change}
        estimate = training_memory(spec, **settings)
        peak = estimate.peak_allocated_bytes
        rows.append((label, describe_job(settings), peak, estimate.peak_phase, peak / base - 1))
    return Table.of(
        caption=(f"One lever at a time on full fine-tuning of {spec.name} (pure bf16, AdamW, batch 8 x seq 2048): "
                 "peak_allocated_bytes per GPU (GiB) and its change against the baseline."),
        columns=(Column("lever"), Column("job"), gib_column("peak allocated GiB"), Column("peak phase"),
                 Column("change", signed_percent, "r")),
        rows=rows,
        assumptions=(STEP, "SDPA attention unless stated; AdamW foreach unless stated",
                     "DDP keeps a bucketed copy of the gradients; ZeRO-1 shards optimizer state and step "
                     "temporaries, ZeRO-3 also gradients and weights", CATALOG),
    )


LOGIT_MODELS = ("llama-2-7b", "mistral-7b-v0.3", "llama-3.2-1b", "llama-3-8b", "qwen2.5-0.5b", "qwen2.5-7b")


@table("memory-activations-logits")
def logits_table() -> Table:
    """fp32 logits per token against all decoder layers' saved activations per token."""
    rows = []
    for model_id in LOGIT_MODELS:
        spec = get_model(model_id)
        setup = training_setup(**LORA_JOB)
        layers = saved_bytes_per_token_per_layer(spec, layout=activation_layout(setup), seq=setup.seq).total * spec.num_layers
        # At the start of backward three fp32 logits-sized tensors are live: the log-softmax
        # cross-entropy saved, and the two fp32 tensors of the loss gradient.
        loss = 3 * DType.FP32.bytes_per_element * spec.vocab_size
        rows.append((spec.name, spec.vocab_size, spec.num_layers, layers / MIB, loss / MIB, loss / layers))
    rows.sort(key=lambda row: (row[1], row[0]))
    return Table.of(
        caption=("Per token: what all decoder layers save for backward (LoRA, bf16 autocast, all-linear r16, SDPA) "
                 "against the three fp32 vocabulary-sized tensors live at the start of backward (MiB per token)."),
        columns=(Column("model"), number_column("vocabulary"), Column("layers", align="r"),
                 decimal_column("layers' activations MiB/token", 2), decimal_column("fp32 loss tensors MiB/token", 2),
                 percent_column("loss / layers")),
        rows=rows,
        assumptions=("loss tensors: 3 x 4 bytes x vocabulary (the log-softmax saved by cross-entropy and the two "
                     "fp32 logits-sized tensors of its gradient), as in calculators.memory.training",
                     CATALOG),
    )


@table("memory-activations-key-numbers")
def key_numbers_activations() -> Table:
    """Key numbers of the activations page."""
    spec = get_model(REFERENCE_MODEL)
    mixed = activation_layout(training_setup(method="full", precision="bf16-mixed"))
    per_layer = saved_bytes_per_token_per_layer(spec, layout=mixed, seq=LAYOUT_SEQ).total
    ckpt = checkpoint_bytes_per_token_per_layer(layout=mixed, spec=spec)
    lora = activation_layout(training_setup(seq=4096, **LORA_JOB))
    sdpa = saved_bytes_per_token_per_layer(spec, layout=lora, seq=4096).total
    eager = saved_bytes_per_token_per_layer(spec, layout=replace(lora, attention="eager"), seq=4096).total
    rows = (
        (f"{spec.name}, full bf16-mixed, SDPA: saved per token per layer", number(per_layer / KIB, 1), "KiB",
         saved_bytes_per_token_per_layer),
        ("same, gradient checkpointing: kept per token per layer", number(ckpt / KIB, 1), "KiB",
         checkpoint_bytes_per_token_per_layer),
        (f"{spec.name}, full bf16-mixed, SDPA: saved per token, all {spec.num_layers} layers",
         number(per_layer * spec.num_layers / MIB, 2), "MiB", saved_bytes_per_token_per_layer),
        (f"{spec.name}, LoRA, seq 4096: share of eager attention's saved activations that SDPA avoids",
         number(100 * (1 - sdpa / eager)), "%", saved_bytes_per_token_per_layer),
    )
    return Table.key_numbers(
        rows, columns=("quantity", "value", "unit", "function"), dotted=True, code=False,
        caption="Key numbers of activation memory; derived.",
        assumptions=(f"seq {LAYOUT_SEQ} unless stated", "LoRA: bf16 base, all-linear rank 16, fp32 adapters", CATALOG))


TABLES: dict[str, TableFunction] = declared_tables(globals())
