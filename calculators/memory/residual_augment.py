"""Prefill temporaries of a decoder whose residual stream is several hidden states wide (Gemma 3n's AltUp).

transformers 5.23's ``Gemma3nTextModel.forward`` keeps, for the whole prefill, besides the cache:

* the embedding output (``hidden_states_0``), the ``streams - 1`` rescaled AltUp projections of it
  (the list ``temp_hidden_states``) and the last raw projection (the local ``altup_proj``): ``streams + 1`` x hidden;
* every layer's per-layer input: ``layers x hidden_size_per_layer_input`` per token;
* the residual stream itself, ``streams`` x hidden, as the layer's input.

Inside a layer (``Gemma3nTextDecoderLayer.forward``), at its largest moment (the MLP's down projection):
the AltUp prediction (``streams`` x hidden), six hidden-wide locals that stay referenced until the
layer returns (the normed active stream, LAuReL's output, attention's output, its sum with the
stream, the LAuReL-averaged sum and its norm), the MLP's gate output, its activation, the up
output and their product (4 x the layer's width), and the down projection's output (hidden).

Formula per token, in elements: ``(2 streams + 1) x hidden + layers x width_per_layer_input``
(kept) ``+ streams x hidden + 6 hidden + max(4 x MLP width + hidden, attention)`` (the layer), where
attention is ``4 q_dim + 2 kv_dim`` (q, k, v and the rotary temporaries of q). The two rotary tables
(local and global layers) and the mask are added by the caller.

Traced with ``scripts/measure_memory.py`` (fake tensors) on Gemma 3n E2B's language model: the
activations at the prefill peak of a 2048-token prompt were 341,884,928 bytes; this formula, with two
rotary tables and a boolean 2048 x 2048 mask, gives the same.

>>> from calculators.model_config import spec_from_config
>>> spec = spec_from_config({"model_type": "gemma3n_text", "intermediate_size": 8192, "num_hidden_layers": 30,
...     "num_kv_shared_layers": 10})
>>> augmented_layer_bytes(spec, tokens=2048, act=2) // (2048 * 2 * 2048)  # 39.75 hidden widths per token
39
"""

from __future__ import annotations

from calculators.model import ModelSpec
from calculators.model_layers import LayerSpec


def augmented_layer_bytes(spec: ModelSpec, *, tokens: int, act: int) -> int:
    """Bytes live at the peak of one layer's prefill, the streams and per-layer inputs kept beside it included."""
    extras = spec.residual_augment
    if extras is None:
        raise ValueError(f"{spec.name}: no AltUp streams or per-layer inputs (ModelSpec.residual_augment)")
    h, n = spec.hidden_size, extras.altup_streams
    kept = (2 * n + 1) * h + spec.num_layers * extras.per_layer_input_width
    widest = max((layer.mlp_width or spec.intermediate_size) for layer in spec.layers)
    inside = max(4 * widest + h, 4 * spec.q_dim + 2 * spec.kv_dim)
    return tokens * act * (kept + n * h + 6 * h + inside)


def augmented_saved_bytes(spec: ModelSpec, *, compute_bytes: int, layer: LayerSpec, attention: int,
                          trainable_base: bool = True) -> tuple[int, int, int, int]:
    """What one Gemma 3n layer keeps for backward per token: ``(norms, linear inputs, attention, mlp)`` bytes.

    Traced with ``torch.autograd.graph.saved_tensors_hooks`` on a small random Gemma 3n (transformers 5.23, bf16,
    every weight trainable), storage by storage:

    * eight RMSNorms of hidden (AltUp's router norm before and after the layer, input, LAuReL, post-attention,
      pre- and post-MLP, per-layer input), each its fp32 input, its fp32 normalised output (the weight is
      multiplied in fp32) and two fp32 values per token; q_norm the same per head, and where the layer computes
      its own K and V, k_norm alike and the weightless v_norm its fp32 input;
    * AltUp: the router's 16-bit input and its output (streams: 16-bit, and fp32 from the tanh) before and after
      the layer, the prediction's coefficients (streams^2) and the streams permuted for its matmul (streams x
      hidden), the correction's coefficients (streams) and its innovation repeated over the streams (streams x
      hidden);
    * LAuReL's two inputs (hidden, rank); the per-layer input's gate input and the stream it scales (2 hidden),
      and three of its width (gate output, activation, product);
    * attention: ``attention`` (the caller's SDPA terms: q, K, V where the layer computes them, output, log-sum-
      exp, a mask's bias); the MLP: its input, gate and up outputs, activation, product (and with activation
      sparsity the gate before its top-k, and one value per token).

    With a frozen base (LoRA; traced the same way with PEFT adapters on q, k, v and o) no norm saves its normalised
    output (``4 x`` hidden, q and k widths) and no frozen linear its input: the routers' inputs, the normed stream
    that q, k, v and LAuReL read, LAuReL's rank-wide middle, the router's outputs that both coefficient linears
    read, the per-layer gate's input, the per-layer projection's input and its activation's output, the MLP's
    input and the down projection's; the adapters' own inputs are the caller's.

    A 16-bit tensor takes ``compute_bytes`` per element.
    """
    extras = spec.residual_augment
    if extras is None:
        raise ValueError(f"{spec.name}: no AltUp streams or per-layer inputs (ModelSpec.residual_augment)")
    a, h, n = compute_bytes, spec.hidden_size, extras.altup_streams
    own_kv = not layer.kv_shared
    norms = 8 * (8 * h + 8) + 8 * spec.q_dim + 8 * spec.num_attention_heads
    if own_kv:
        norms += 12 * spec.kv_dim + 16 * spec.num_kv_heads
    altup = a * (2 * h + n * n + 3 * n + 2 * n * h) + 8 * n
    linear_inputs = altup + a * (h + extras.laurel_rank) + a * (2 * h + 3 * extras.per_layer_input_width)
    if not own_kv:
        attention -= 2 * a * spec.kv_dim  # K and V are the earlier layer's, saved there
    width = layer.mlp_width or spec.intermediate_size
    # Activation sparsity's top-k keeps the gate's output before it (and one value per token) besides the rest.
    sparse = a * (width + 1) if layer.activation_sparsity else 0
    mlp = a * (h + 4 * width) + sparse
    if not trainable_base:
        q_kv = spec.q_dim + (spec.kv_dim if own_kv else 0)
        norms -= 8 * 4 * h + 4 * q_kv
        linear_inputs -= a * (5 * h + 2 * n + extras.laurel_rank + 2 * extras.per_layer_input_width)
        mlp -= a * (h + width)
    return norms, linear_inputs, attention, mlp


def augmented_first_layer_frozen_bytes(spec: ModelSpec, *, compute_bytes: int) -> int:
    """Per token, what the first layer does not save when the embedding is frozen (LoRA): before its first adapter
    nothing needs a gradient, so AltUp's prediction (its router's norm, the router's fp32 output, the coefficients
    and the permuted streams) and the input and LAuReL norms (fp32 input and two fp32 values each) keep nothing.
    Traced as :func:`augmented_saved_bytes`."""
    extras = spec.residual_augment
    if extras is None:
        raise ValueError(f"{spec.name}: no AltUp streams or per-layer inputs (ModelSpec.residual_augment)")
    h, n = spec.hidden_size, extras.altup_streams
    return 3 * (4 * h + 8) + 4 * n + compute_bytes * (n * n + n * h)


def augmented_model_saved_bytes(spec: ModelSpec, *, compute_bytes: int, trainable_base: bool = True) -> int:
    """What Gemma 3n's model keeps for backward per token outside its layers (the final norm and head aside).

    Traced as :func:`augmented_saved_bytes`: the embedding's 16-bit copy for the per-layer projection, the per-layer
    inputs' RMSNorm (fp32 input and normalised output of ``layers x width``, two fp32 values per layer), the
    ``streams - 1`` AltUp projections in and out (each its output and its rescaled copy), the last layer's
    ``streams`` outputs and one 16-bit value per stream and token for each rescaling. With a frozen base (LoRA)
    only the way out keeps anything: the projections out (output and rescaled copy), the last layer's outputs and
    half the per-stream values.
    """
    extras = spec.residual_augment
    if extras is None:
        return 0
    a, h, n, lp = compute_bytes, spec.hidden_size, extras.altup_streams, spec.num_layers * extras.per_layer_input_width
    if not trainable_base:
        return a * (2 * (n - 1) * h + n * h) + 2 * n * a
    return a * h + 8 * lp + 8 * spec.num_layers + a * (4 * (n - 1) * h + n * h) + 4 * n * a
