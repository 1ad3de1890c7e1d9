"""Peak GPU memory of one training step, phase by phase, the way PyTorch runs it.

The step is ``loss = model(ids, labels=ids).loss; loss.backward(); optimizer.step();
optimizer.zero_grad(set_to_none=True)`` with a Hugging Face ``transformers`` model.
Memory is tracked through the phases and the peak is the largest moment, not a sum of
everything:

* **forward**: weights, optimizer state (from step 2), autocast's 16-bit weight copies,
  the activations autograd saves, and at the loss the logits, their fp32 upcast and the
  fp32 log-softmax.
* **backward**: at its start the loss gradient (two fp32 logits-sized tensors) on top
  of everything saved; then the output head's weight gradient; then layer by layer,
  activations are freed as gradients appear (under checkpointing, one layer is
  recomputed at a time).
* **optimizer**: weights, gradients, optimizer state and the step's temporaries (the
  foreach AdamW step allocates a parameter-sized temporary).

>>> from calculators.catalog.models import get_model
>>> estimate = training_memory(get_model("llama-3-8b"), method="full",
...     precision="bf16-mixed", optimizer="adamw", batch=1, seq=512)
>>> estimate.peak_phase
'optimizer'
>>> round(estimate.peak_allocated_bytes / estimate.parameters, 1)  # bytes per parameter
20.0
"""

from __future__ import annotations

from calculators.dtypes import DType
from calculators.memory.activations import (
    ActivationLayout,
    checkpoint_bytes_per_token_per_layer,
    saved_bytes_by_layer,
    saved_bytes_per_token_per_layer,
)
from calculators.memory.kernels import layer_attention_path
from calculators.memory.lora import lora_adapted_linears, lora_parameters
from calculators.memory.optimizers import adafactor_state_bytes, optimizer_bytes
from calculators.memory.overhead import (
    CUDA_WORKSPACE_BYTES,
    overhead_assumptions,
    uncertainty_above_total,
    runtime_overhead_bytes,
)
from calculators.memory.qlora_kernels import SIXTEEN_BIT_BYTES, get_qlora_kernel
from calculators.memory.residual_augment import augmented_first_layer_frozen_bytes, augmented_model_saved_bytes
from calculators.memory.result import MemoryEstimate
from calculators.memory.state_mixers import mixer_backward_weight_grad_bytes
from calculators.memory.training_inputs import TrainingSetup, training_setup
from calculators.memory.training_layers import (
    backward_layer_transient_bytes,
    forward_layer_transient_bytes,
    largest_layer_parameters,
    matmul_weight_parameters,
    matrix_shapes,
)
from calculators.memory.weights import weight_bytes
from calculators.model import ModelSpec
from calculators.validate import model_spec


def activation_layout(setup: TrainingSetup) -> ActivationLayout:
    """How a training step with these settings stores activations (dtypes, autocast, LoRA).

    The residual stream follows the dtype of the weights it starts from: fp32 master
    weights (fp32, bf16-mixed, fp16-mixed full fine-tuning, or an fp32 frozen base) give
    a 4-byte stream; a 16-bit model or frozen base gives a 2-byte one.

    >>> activation_layout(training_setup(precision="bf16-mixed")).residual_bytes
    4
    >>> activation_layout(training_setup(method="lora", precision="bf16")).residual_bytes
    2
    """
    full = setup.method == "full"
    if full:
        residual = setup.weight_bytes
    else:
        residual = 4 if setup.base_dtype is DType.FP32 else 2
    return ActivationLayout(
        compute_bytes=setup.compute_bytes,
        residual_bytes=residual,
        autocast=setup.mixed,
        trainable_base=full,
        lora_targets=frozenset(setup.lora_targets),
        lora_rank=setup.lora_rank if not full else 0,
        adapter_bytes=4,
        attention=setup.attention,
        device=setup.device,
    )


def training_memory(spec: ModelSpec, **settings: object) -> MemoryEstimate:
    """Peak memory of one training step per GPU, in bytes, with the phase of the peak.

    Formula: ``peak = max(forward, backward, optimizer)`` where each phase sums the live
    tensors at its worst moment (see the module docstring); ``total = peak + context +
    workspace + allocator slack``.

    Args:
        spec: model shapes (see :func:`calculators.catalog.models.get_model`).
        **settings: keyword arguments of :func:`training_setup` (method, precision,
            base_dtype, optimizer, batch, seq, grad_checkpointing, attention, lora_rank,
            lora_targets, grad_accumulation, gpus, zero).

    Returns:
        A :class:`~calculators.memory.result.MemoryEstimate` for one GPU.
    """
    spec = model_spec("spec", spec)
    setup = training_setup(**settings)
    return training_memory_of(spec, setup)


def training_memory_of(spec: ModelSpec, setup: TrainingSetup) -> MemoryEstimate:
    """:func:`training_memory` of a checked :class:`~calculators.memory.training_inputs.TrainingSetup`, bytes per GPU.

    >>> from calculators.catalog.models import get_model
    >>> from calculators.memory.training_inputs import TrainingSetup
    >>> setup = TrainingSetup.of(method="lora", batch=2, seq=1024)
    >>> training_memory_of(get_model("llama-3-8b"), setup) == training_memory(get_model("llama-3-8b"), method="lora",
    ...                                                                      batch=2, seq=1024)
    True
    """
    full = setup.method == "full"
    tokens = setup.tokens
    vocab, hidden = spec.vocab_size, spec.hidden_size
    a = setup.compute_bytes

    # ---------------------------------------------------------------- weights, grads, state
    if full:
        trainable = spec.parameters
        param_bytes = setup.weight_bytes
        weights = trainable * param_bytes
        residual = param_bytes
    else:
        trainable = lora_parameters(spec, rank=setup.lora_rank, targets=setup.lora_targets)
        param_bytes = 4  # PEFT keeps adapters in fp32 (autocast_adapter_dtype=True)
        weights = weight_bytes(spec, dtype=setup.base_format) + trainable * param_bytes
        residual = 4 if setup.base_dtype is DType.FP32 else 2
    grads = trainable * param_bytes
    opt = optimizer_bytes(optimizer=setup.optimizer, param_bytes=param_bytes)
    if setup.optimizer == "adafactor":
        if full:
            shapes = matrix_shapes(spec)
        else:  # lora_A is (rank, in), lora_B is (out, rank)
            shapes = [shape for fan_in, fan_out, count in lora_adapted_linears(spec, targets=setup.lora_targets)
                      for shape in [(setup.lora_rank, fan_in), (fan_out, setup.lora_rank)] * count]
        state = adafactor_state_bytes(shapes=shapes, param_bytes=param_bytes)
    else:
        state = int(round(trainable * opt.state_bytes_per_param))
    step_temp = int(round(trainable * opt.step_temp_bytes_per_param))

    # Data-parallel sharding (ZeRO / FSDP): each GPU keeps 1/N of the sharded terms.
    n = setup.gpus
    ddp_buckets = 0
    if n > 1:
        if setup.zero >= 1:
            state, step_temp = _ceil_div(state, n), _ceil_div(step_temp, n)
        if setup.zero >= 2:
            grads = _ceil_div(grads, n)
        if setup.zero >= 3:
            weights = _ceil_div(weights, n)
        if setup.zero == 0:
            # DDP's reducer copies gradients into flat buckets (gradient_as_bucket_view=False).
            ddp_buckets = grads

    # autocast caches a 16-bit copy of every trainable matmul weight during forward.
    autocast_copies = 0
    if setup.mixed:
        if full:
            autocast_copies = 2 * matmul_weight_parameters(spec)
        else:
            autocast_copies = 2 * trainable
            if setup.base_dtype is DType.FP32:
                autocast_copies += 2 * matmul_weight_parameters(spec)
    if n > 1 and setup.zero >= 3:
        # ZeRO-3/FSDP gathers the layer being computed and prefetches the next one, in the
        # dtype the shards are stored in for compute (16-bit for mixed precision, the
        # frozen base's format for LoRA/QLoRA).
        if full:
            gather_bytes = 2.0 if setup.mixed else float(param_bytes)
        else:
            gather_bytes = weight_bytes(spec, dtype=setup.base_format) / spec.parameters
        gathered = int(min(2, spec.num_layers) * largest_layer_parameters(spec) * gather_bytes)
        autocast_copies = _ceil_div(autocast_copies, n) + gathered

    # ---------------------------------------------------------------- activations
    layout = activation_layout(setup)
    # Each kind of layer keeps what its own mixer and MLP keep: hybrid models, a MoE model's dense first
    # layers (ERNIE 4.5's traced 1-of-3 dense layers: +1.8 % when counted as MoE layers, +0.3 % apart),
    # Llama 4's dense and every-expert MoE layers (an E-fold difference). On the traced small DeepSeek-V3
    # (2 dense of 6 layers) counting apart moved the errors from +1.8/-0.7/-0.9 % to +1.3/-0.5/-2.0 %.
    per_kind = {kind: saved_bytes_per_token_per_layer(spec, layout=layout, seq=setup.seq, layer=kind).total
                for kind, _count in spec.layer_groups}
    all_layers = sum(per_kind[kind] * count for kind, count in spec.layer_groups)
    first_layer_bytes, last_layer_bytes = per_kind[spec.layers[0]], per_kind[spec.layers[-1]]
    # With a frozen embedding (LoRA), layer 0's input does not require grad, so its first norm saves no input
    # (a post-norm's input depends on the adapters); every later layer's input depends on an adapter.
    first_norm = 0 if spec.block_layout == "post_norm" else (8 if spec.norm_kind == "layer" else 4) * hidden + 4
    if spec.residual_augment is not None:  # Gemma 3n: AltUp's prediction and two norms come before any adapter
        first_norm = augmented_first_layer_frozen_bytes(spec, compute_bytes=a)
    layer0_saved = (first_layer_bytes - (0 if full else first_norm)) * tokens
    layers_saved = (all_layers - first_layer_bytes) * tokens + layer0_saved
    if spec.is_hybrid:  # layer by layer: a frozen prefix of layers without adapters keeps nothing
        by_layer = saved_bytes_by_layer(spec, layout=layout, seq=setup.seq)
        layer0_saved, layers_saved, last_layer_bytes = by_layer[0] * tokens, sum(by_layer) * tokens, by_layer[-1]
    # Outside the layers, Gemma 3n keeps its per-layer inputs' norm and AltUp's projections in and out (traced).
    outside = augmented_model_saved_bytes(spec, compute_bytes=a, trainable_base=full) * tokens
    layers_saved += outside
    checkpoints = spec.num_layers * checkpoint_bytes_per_token_per_layer(layout=layout, spec=spec) * tokens + outside
    # A QLoRA library that keeps the 16-bit weight it dequantised for the backward (AutoGPTQ's)
    # holds every layer's from its forward to its backward, one layer's under recomputation.
    keeps = setup.method == "qlora" and get_qlora_kernel(setup.qlora_weights).keeps_sixteen_bit_weight
    kept_layer = int(SIXTEEN_BIT_BYTES * largest_layer_parameters(spec)) if keeps else 0
    kept_all = int(SIXTEEN_BIT_BYTES * spec.linear_parameters) if keeps else 0

    # Final norm (fp32 input + rsqrt; Cohere's LayerNorm two fp32 copies of x - mean), its output kept for the
    # head, labels and ids (int64).
    final_norm = ((8 if spec.norm_kind == "layer" else 4) * hidden + 4) * tokens
    if full:  # normalised, saved for the weight grad (in fp32 where the norm multiplies its weight in fp32)
        final_norm += (4 if residual == 4 or spec.norm_weight_fp32 else 2) * hidden * tokens
        final_norm += (a if setup.mixed else residual) * hidden * tokens  # the head's input
    inputs = 2 * 8 * tokens  # input_ids and shifted labels, int64
    logits_bytes = (4 if setup.precision == "fp32" and (full or residual == 4) else 2) * tokens * vocab
    fp32_logits = 4 * tokens * vocab
    log_softmax = fp32_logits  # saved by cross-entropy for its backward
    if spec.final_logit_softcapping is not None:
        # Gemma 2: logits = tanh(logits / cap) * cap; the tanh output is saved.
        log_softmax += logits_bytes

    # ---------------------------------------------------------------- phases
    accumulated_grads = grads if setup.grad_accumulation > 1 else 0
    resident = weights + state + accumulated_grads + ddp_buckets
    saved = checkpoints if setup.grad_checkpointing else layers_saved + kept_all
    # Under checkpointing autocast's cache is not saved by autograd: it lives until the
    # autocast region exits at the end of forward; the head's copy stays (not checkpointed).
    head_copy = 2 * vocab * hidden if (setup.mixed and full) else 0
    copies_in_backward = head_copy if setup.grad_checkpointing else autocast_copies

    upcast = fp32_logits if logits_bytes == 2 * tokens * vocab else 0
    # Mamba, Mamba2 and Nemotron-H upcast in their forward (lm_head(...).float()): the 16-bit logits go at once.
    kept_logits = 0 if (spec.fp32_logits and upcast) else logits_bytes
    forward_loss = resident + autocast_copies + saved + final_norm + inputs + kept_logits + upcast + log_softmax
    layer_transient = forward_layer_transient_bytes(spec, setup, tokens, residual)
    # Inside the last layer's forward its own activations are not all saved yet: count the layers before it.
    last_layer_saved = 0 if setup.grad_checkpointing else last_layer_bytes * tokens
    forward_layer = resident + autocast_copies + saved - last_layer_saved + inputs + layer_transient
    forward = max(forward_loss, forward_layer)

    backward_start = resident + copies_in_backward + saved + final_norm + inputs + log_softmax + 2 * fp32_logits
    head_trainable = full
    head_grad = (4 if param_bytes == 4 else 2) * vocab * hidden if head_trainable else 0
    head_grad_temp = 2 * vocab * hidden if (head_trainable and setup.mixed) else 0
    grad_logits_16 = 2 * tokens * vocab if logits_bytes == 2 * tokens * vocab else fp32_logits
    backward_head = (resident + copies_in_backward + saved + final_norm - (a * hidden * tokens if full else 0)
                     + inputs + grad_logits_16 + a * hidden * tokens + head_grad + head_grad_temp)
    if setup.grad_checkpointing:
        # The first layer recomputed is the last one (layer 0 itself in a 1-layer model).
        layer_saved = layer0_saved if spec.num_layers == 1 else last_layer_bytes * tokens
        layer_copies = 2 * largest_layer_parameters(spec) if (setup.mixed and full) else 0
        recompute_first = (resident + head_copy + checkpoints + inputs + head_grad
                           + layer_saved + layer_copies + kept_layer
                           + backward_layer_transient_bytes(spec, setup, tokens, residual))
        # Layer 0's checkpointed input is held while it is recomputed. With an fp32
        # residual and a trainable norm it is the very tensor the norm saves (already in
        # layer0_saved); otherwise (16-bit residual, or LoRA's frozen embedding) it is extra.
        first_checkpoint = 0 if (full and residual == 4) else (
            checkpoint_bytes_per_token_per_layer(layout=layout, spec=spec) * tokens)
        recompute_last = (weights + state + grads + ddp_buckets + inputs + first_checkpoint + layer0_saved
                          + layer_copies + kept_layer + backward_layer_transient_bytes(spec, setup, tokens, residual))
        backward = max(backward_start, backward_head, recompute_first, recompute_last)
    else:
        # Layer 0's saved activations (and its 16-bit weight copies) live until its backward ends.
        layer0 = layer0_saved + kept_layer + (2 * largest_layer_parameters(spec) if (setup.mixed and full) else 0)
        end = (weights + state + grads + ddp_buckets + inputs + layer0
               + backward_layer_transient_bytes(spec, setup, tokens, residual))
        # The last layer's backward: every activation still saved, the head's gradient
        # formed, and the layer's own backward temporaries.
        mlp_grads = mixer_backward_weight_grad_bytes(spec, param_bytes=param_bytes, trainable=full)
        first_layer = (resident + copies_in_backward + saved + inputs + head_grad + mlp_grads
                       + backward_layer_transient_bytes(spec, setup, tokens, residual))
        backward = max(backward_start, backward_head, first_layer, end)

    optimizer_phase = weights + grads + state + step_temp + ddp_buckets
    # cuBLAS workspaces are allocated once and live through every phase (on CUDA).
    workspaces = CUDA_WORKSPACE_BYTES if setup.device == "cuda" else 0
    phases = {"forward": forward + workspaces, "backward": backward + workspaces,
              "optimizer": optimizer_phase + workspaces}
    peak_phase = max(phases, key=lambda name: phases[name])
    peak = phases[peak_phase]

    if peak_phase == "optimizer":
        held = {"weights": weights, "gradients": grads, "optimizer_states": state,
                "optimizer_step_temporaries": step_temp}
    else:
        held = {"weights": weights, "gradients": accumulated_grads, "optimizer_states": state,
                "autocast_weight_copies": autocast_copies if peak_phase == "forward" else copies_in_backward,
                "activations": saved + final_norm + inputs}
    breakdown = _breakdown(held, peak=peak - workspaces, ddp_buckets=ddp_buckets)
    if workspaces:
        breakdown["cuda_workspaces"] = workspaces
    path = layer_attention_path(spec, attention=setup.attention, compute_bytes=a, seq=setup.seq, device=setup.device)
    scores_block = 4 * setup.batch * spec.num_attention_heads * setup.seq ** 2 if path.materialises_scores else 0
    block = max(fp32_logits, scores_block)
    overhead = runtime_overhead_bytes(transient_block_bytes=block, recompute=setup.grad_checkpointing,
                                      allocator=setup.allocator)
    if setup.device != "cuda":
        overhead = {}
    return MemoryEstimate(
        parameters=spec.parameters,
        trainable_parameters=trainable,
        active_parameters=spec.active_parameters,
        peak_allocated_bytes=int(peak),
        total_bytes=int(peak + sum(overhead.values())),
        peak_phase=peak_phase,
        breakdown=breakdown,
        phase_peaks={k: int(v) for k, v in phases.items()},
        assumptions=_assumptions(setup) + overhead_assumptions(setup.allocator),
        notes=spec.notes + _notes(setup) + _hybrid_notes(spec),
        overhead=overhead,
        uncertainty_bytes=uncertainty_above_total(overhead, transient_block_bytes=block),
        transient_block_bytes=block,
        warnings=spec.warnings,
    )


def _hybrid_notes(spec: ModelSpec) -> tuple[str, ...]:
    if not spec.state_mixer_layers:
        return ()
    return (f"the {spec.state_mixer_layers} Mamba / linear-attention layers are counted as transformers' PyTorch "
            "scans keep them (traced); with the CUDA kernels installed (mamba_ssm, causal-conv1d, "
            "flash-linear-attention) they keep far fewer temporaries, so this is an upper bound there",)


def _ceil_div(value: int, divisor: int) -> int:
    return -(-value // divisor)


def _breakdown(held: dict[str, int], *, peak: int, ddp_buckets: int) -> dict[str, int]:
    """The peak phase's ``held`` tensors, DDP's gradient buckets, and the rest of the peak as its transient."""
    parts = dict(held)
    if ddp_buckets:
        parts["ddp_gradient_buckets"] = ddp_buckets
    known = sum(parts.values())
    # What is left is the phase's transient peak: logits and loss tensors, the head's
    # weight gradient, or one layer's recomputation under checkpointing.
    parts["transient_at_peak"] = max(0, peak - known)
    return {name: int(value) for name, value in parts.items()}


def _assumptions(setup: TrainingSetup) -> tuple[str, ...]:
    items = [
        f"method {setup.method}, precision {setup.precision}, optimizer {setup.optimizer}",
        f"batch {setup.batch} x seq {setup.seq} per GPU, attention {setup.attention}, "
        f"gradient checkpointing {'on' if setup.grad_checkpointing else 'off'}",
        "Hugging Face transformers model; loss = cross-entropy over all positions with fp32 logits",
        "optimizer.zero_grad(set_to_none=True): gradients do not exist during forward",
    ]
    if setup.method != "full":
        items.append(f"LoRA rank {setup.lora_rank} on {','.join(setup.lora_targets)}; adapters fp32 (PEFT default); "
                     f"frozen base {setup.base_dtype.value}")
    if setup.gpus > 1:
        items.append(f"{setup.gpus} GPUs, ZeRO stage {setup.zero} (0 = DDP with gradient buckets); derived, not "
                     "measured; PyTorch layout (fp32 master weights and gradients where not sharded), so "
                     "DeepSpeed's bf16 mode with partitioned fp32 masters needs less")
    return tuple(items)


def _notes(setup: TrainingSetup) -> tuple[str, ...]:
    notes = []
    if setup.optimizer == "paged-adamw-8bit":
        notes.append("paged optimizer state can spill to host RAM under memory pressure; counted on the GPU here")
    return tuple(notes)
