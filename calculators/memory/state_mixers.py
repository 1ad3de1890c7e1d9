"""Memory of the Mamba and Gated DeltaNet mixers on transformers' PyTorch path, tensor by tensor.

transformers 5.23 runs these mixers in plain PyTorch unless the CUDA kernels are installed
(``mamba_ssm`` and ``causal-conv1d`` for Mamba, ``flash-linear-attention`` for Gated
DeltaNet): the Mamba-1 selective scan materialises its ``D x N`` discretised tensors for the
whole sequence and loops over the tokens (``mamba_selective_scan`` in ``modeling_mamba.py``,
``modeling_jamba.py``), the Mamba-2 chunked scan (``mamba2_chunk_scan``, the same function in
``modeling_mamba2.py``, ``modeling_nemotron_h.py``, ``modeling_falcon_h1.py`` and
``modeling_granitemoehybrid.py``) builds ``chunk x chunk`` score blocks per head, and the
chunked gated delta rule (``torch_chunk_gated_delta_rule``, ``modeling_qwen3_next.py``)
builds ``64 x 64`` blocks per value head. The functions here replay those code paths: each
line adds a tensor the code allocates (named as in the code) and drops it where the code
lets go of its last reference, and the result is the peak. They were checked against the
measurement harness (fake tensors, CPU: the torch path). The CUDA kernels fuse the scans and
keep far fewer temporaries, so on a GPU with them installed these figures are upper bounds.

Sizes are in bytes; ``T`` is batch x tokens, ``Tp`` the tokens padded to whole chunks, ``a``
the activation dtype's bytes; fp32 tensors are 4 bytes.

>>> from calculators.model_layers import MambaSpec
>>> m = MambaSpec(version=2, inner_size=256, state_size=16, conv_kernel=4, num_heads=8, n_groups=1, chunk_size=64)
>>> mamba2_prefill_bytes(m, batch=1, seq=64, act=2) > 64 * 256 * 4 * 8  # well above the scan's output alone
True
"""

from __future__ import annotations

import math

from calculators.model import ModelSpec
from calculators.model_layers import LayerSpec, LinearAttentionSpec, MambaSpec


class _Live:
    """Running total and peak of the bytes a code path holds."""

    def __init__(self) -> None:
        self.now = 0
        self.peak = 0

    def add(self, *sizes: int) -> None:
        self.now += sum(sizes)
        self.peak = max(self.peak, self.now)

    def drop(self, *sizes: int) -> None:
        self.now -= sum(sizes)


def _conv(live: _Live, *, channels: int, kernel: int, batch: int, tokens: int, a: int) -> int:
    """causal_conv1d_fn: F.conv1d pads both sides (``tokens + kernel - 1`` outputs), then the SiLU's new tensor."""
    conv = a * channels * (tokens + (kernel - 1) * batch)
    live.add(conv)
    live.add(a * channels * tokens)
    live.drop(conv)
    return a * channels * tokens


def mamba2_prefill_bytes(m: MambaSpec, *, batch: int, seq: int, act: int) -> int:
    """Peak bytes one Mamba-2 mixer holds during a prefill without gradients (beyond its input).

    ``Mamba2Mixer`` / ``NemotronHMamba2Mixer`` / ``FalconH1Mixer`` / ``GraniteMoeHybridMambaLayer``:
    ``in_proj``'s output (gate, x-B-C, dt), the convolution, then ``mamba2_chunk_scan``, whose
    locals live until it returns.
    """
    a, d, h, n = act, m.inner_size, m.num_heads, m.state_size
    p, gn, chunk = d // h, m.n_groups * n, m.chunk_size
    tokens = batch * seq
    chunks = math.ceil(seq / chunk)
    padded = batch * chunks * chunk
    states = 4 * h * p * n * batch  # one (batch, heads, head_dim, N) fp32 state
    live = _Live()
    live.add(a * (d + m.conv_channels + h) * tokens)  # projected_states = in_proj(hidden_states)
    _conv(live, channels=m.conv_channels, kernel=m.conv_kernel, batch=batch, tokens=tokens, a=a)
    # mamba2_chunk_scan: dt + dt_bias, softplus, clamp (each replaces the last)
    live.add(2 * a * h * tokens)
    live.drop(a * h * tokens)
    hs = 4 * d * tokens
    live.add(hs)  # hidden_states.float()
    for _ in ("B", "C"):  # B.float().repeat_interleave(heads // groups): one copy per head
        live.add(4 * gn * tokens, 4 * h * n * tokens)
        live.drop(4 * gn * tokens)
    live.add(4 * d * padded, 4 * d * padded)  # D_residual = D * pad(hidden_states): the pad, the product
    live.drop(4 * d * padded)
    live.add(4 * h * tokens, 4 * d * tokens)  # hidden_states * dt[..., None].float()
    live.drop(4 * h * tokens, hs)
    live.add(4 * h * tokens, 4 * h * tokens)  # A * dt.float()
    live.drop(4 * h * tokens)
    # reshape_into_chunks pads all four before the old ones go
    live.add(4 * d * padded, 4 * h * padded, 8 * h * n * padded)
    live.drop(4 * d * tokens, 4 * h * tokens, 8 * h * n * tokens)
    live.add(4 * h * padded)  # A_cumsum
    block = 4 * h * chunk * padded  # one (batch, heads, chunks, chunk, chunk) fp32 tensor
    live.add(block, block, block)  # segment_sum: masked_fill, cumsum, masked_fill
    live.drop(block, block)
    live.add(block)  # L = exp(...)
    live.drop(block)
    live.add(4 * h * n * padded, 4 * h * n * padded, block)  # G = einsum(C, B): both operands copied
    live.drop(8 * h * n * padded)
    live.add(block)  # M = G * L
    live.add(4 * d * padded, 4 * d * padded)  # Y_diag = einsum(M, hidden_states): hidden copied
    live.drop(4 * d * padded)
    live.add(4 * h * padded, 4 * h * padded)  # decay_states
    live.drop(4 * h * padded)
    live.add(4 * h * n * padded)  # B_decay
    chunk_states = states * chunks
    live.add(4 * d * padded, 4 * h * n * padded, chunk_states)  # states = einsum(B_decay, hidden_states)
    live.drop(4 * d * padded, 4 * h * n * padded)
    live.add(states, states * (chunks + 1))  # previous_states (zeros), torch.cat
    live.drop(chunk_states)
    decay_chunk = 4 * h * (chunks + 1) ** 2 * batch
    live.add(3 * decay_chunk)  # segment_sum of the chunk totals
    live.drop(2 * decay_chunk)
    live.add(states * (chunks + 1))  # new_states = einsum(decay_chunk, states)
    live.drop(states * (chunks + 1))
    live.add(4 * h * padded)  # state_decay_out
    live.add(4 * h * n * padded, chunk_states, 4 * d * padded)  # C_times_states: C and states copied
    live.drop(4 * h * n * padded, chunk_states)
    live.add(4 * d * padded, 4 * d * padded, 4 * d * padded)  # Y_off, Y_diag + Y_off, .contiguous()
    return live.peak


def mamba1_prefill_bytes(m: MambaSpec, *, batch: int, seq: int, act: int) -> int:
    """Peak bytes one Mamba-1 mixer holds during a prefill without gradients (beyond its input).

    ``MambaMixer`` / ``JambaMambaMixer``: ``in_proj``, the convolution, ``x_proj`` (and Jamba's
    dt/B/C norms), ``dt_proj`` (a matmul and its contiguous copy), then ``mamba_selective_scan``:
    ``discrete_A``, ``discrete_B`` and ``deltaB_u`` are ``(batch, D, tokens, N)`` fp32 tensors,
    and the loop keeps every token's output until ``torch.stack``.
    """
    a, d, n, r = act, m.inner_size, m.state_size, m.dt_rank
    tokens = batch * seq
    live = _Live()
    live.add(a * 2 * d * tokens)  # projected_states = in_proj(hidden_states)
    _conv(live, channels=d, kernel=m.conv_kernel, batch=batch, tokens=tokens, a=a)
    live.add(a * (r + 2 * n) * tokens)  # x_proj
    if m.dt_bc_norms:
        live.add(a * (r + 2 * n) * tokens)  # dt_layernorm, b_layernorm, c_layernorm outputs
    live.add(a * d * tokens, a * d * tokens)  # dt_proj.weight @ time_step^T, then its contiguous copy
    live.drop(a * d * tokens)
    live.add(a * d * tokens, a * d * tokens)  # dt + delta_bias, softplus
    live.drop(a * d * tokens)
    big = 4 * d * n * tokens
    live.add(big, big)  # A * dt, exp: discrete_A
    live.drop(big)
    live.add(big)  # discrete_B
    live.add(4 * d * tokens, big)  # hidden_states.float(), deltaB_u
    live.drop(4 * d * tokens)
    live.add(a * d * tokens + 3 * 4 * d * n * batch)  # the loop's outputs, one step's state
    live.drop(3 * 4 * d * n * batch)
    live.add(a * d * tokens)  # torch.stack(scan_outputs)
    live.drop(a * d * tokens)
    live.add(4 * d * tokens, 4 * d * tokens)  # hidden_states * D, + scan_output
    live.drop(4 * d * tokens, a * d * tokens)
    live.add(a * d * tokens, 4 * d * tokens)  # silu(z), scan_output * silu(z)
    return live.peak


def gated_deltanet_prefill_bytes(g: LinearAttentionSpec, *, batch: int, seq: int, act: int, chunk: int = 64) -> int:
    """Peak bytes one Gated DeltaNet mixer holds during a prefill without gradients (beyond its input).

    ``Qwen3NextGatedDeltaNet``: the two input projections, the reshaped copies of q/k/v/z,
    the concatenated conv input and the convolution, then ``torch_chunk_gated_delta_rule``
    (q and k repeated to the value heads and made fp32, L2-normalised and padded to 64-token
    chunks; three ``64 x 64`` blocks per value head and chunk; two triangular solves).
    """
    a, hv, hk = act, g.num_value_heads, g.num_key_heads
    kd, vd = g.key_dim, g.value_dim
    kv_heads_dim = hv * g.key_head_dim  # q or k once repeated to every value head
    tokens = batch * seq
    padded = batch * math.ceil(seq / chunk) * chunk
    live = _Live()
    live.add(a * (2 * kd + 2 * vd) * tokens, a * 2 * hv * tokens)  # in_proj_qkvz, in_proj_ba
    live.add(a * (2 * vd + 2 * hv) * tokens)  # fix_query_key_value_ordering: value, z, b, a reshaped copies
    live.add(a * 2 * kd * tokens)  # query, key reshaped to (batch, seq, -1)
    live.add(a * g.conv_channels * tokens)  # torch.cat((query, key, value))
    _conv(live, channels=g.conv_channels, kernel=g.conv_kernel, batch=batch, tokens=tokens, a=a)
    live.drop(a * g.conv_channels * tokens, a * 2 * kd * tokens, a * vd * tokens)
    live.add(a * hv * tokens, 4 * hv * tokens)  # beta = b.sigmoid(), g
    if hv != hk:
        live.add(2 * a * kv_heads_dim * tokens)  # query, key repeat_interleave'd to the value heads
    live.add(8 * kv_heads_dim * tokens, 4 * vd * tokens, 8 * hv * tokens)  # fp32 contiguous q, k, v, beta, g
    if hv != hk:
        live.drop(2 * a * kv_heads_dim * tokens)
    for _ in range(3):  # l2norm(query), l2norm(key), query * scale: each replaces its input
        live.add(4 * kv_heads_dim * tokens)
        live.drop(4 * kv_heads_dim * tokens)
    live.add(8 * kv_heads_dim * padded, 4 * vd * padded, 8 * hv * padded)  # F.pad of q, k, v, beta, g
    live.drop(8 * kv_heads_dim * tokens, 4 * vd * tokens, 8 * hv * tokens)
    live.add(4 * vd * padded, 4 * kv_heads_dim * padded, 4 * hv * padded)  # v_beta, k_beta, cum_decay
    block = 4 * hv * chunk * padded  # one (batch, heads, chunks, 64, 64) fp32 tensor
    live.add(block, block)  # pairwise_decay: subtraction, masked_fill
    live.drop(block)
    live.add(block)  # .exp()
    live.drop(block)
    for _ in ("ut_system", "intra_chunk_attn"):  # a batched matmul, then * pairwise_decay
        live.add(block, block)
        live.drop(block)
    live.add(4 * kv_heads_dim * padded)  # decayed_k_beta
    live.add(4 * vd * padded, 4 * kv_heads_dim * padded)  # new_values, k_cumdecay (triangular solves)
    live.add(4 * hv * g.key_head_dim * g.value_head_dim * batch, 4 * vd * padded)  # state, core_attn_out
    live.add(4 * kv_heads_dim * padded)  # query * cum_decay.exp() (the old query goes after)
    return live.peak


def state_mixer_stage_bytes(spec: ModelSpec, *, batch: int, seq: int, act: int) -> int:
    """Peak bytes of a prefill while a layer's Mamba or Gated DeltaNet mixer runs, over the layer kinds (0 without).

    Formula: ``tokens x (the stream tensors) + the mixer's peak`` (:func:`mamba2_prefill_bytes`,
    :func:`mamba1_prefill_bytes`, :func:`gated_deltanet_prefill_bytes`). The streams are the
    embedding output (the model's forward keeps it), the layer's input (fp32 when the blocks keep
    their residual in fp32: Mamba, Mamba2) and the norm's output, which is the mixer's input;
    Falcon-H1 multiplies that input by ``ssm_in_multiplier`` into one more tensor.
    """
    tokens, h = batch * seq, spec.hidden_size
    peak = 0
    for layer, _count in spec.layer_groups:
        mixer = 0
        if "mamba" in layer.mixers and spec.mamba is not None:
            scan = mamba1_prefill_bytes if spec.mamba.version == 1 else mamba2_prefill_bytes
            mixer = scan(spec.mamba, batch=batch, seq=seq, act=act)
        if "linear_attention" in layer.mixers and spec.linear_attention is not None:
            mixer = max(mixer, gated_deltanet_prefill_bytes(spec.linear_attention, batch=batch, seq=seq, act=act))
        if not mixer:
            continue
        streams = 2 * act * h + (4 if spec.residual_in_fp32 else act) * h
        if layer.attention is not None:  # Falcon-H1's hidden_states * ssm_in_multiplier
            streams += act * h
        peak = max(peak, tokens * streams + mixer)
    return peak


def hybrid_prefill_transient_bytes(spec: ModelSpec, *, batch: int, seq: int, act: int, attention: int, mlp: int,
                                   masks_and_tables: int) -> int:
    """Peak temporaries of a hybrid model's prefill: the largest of its layers' parts, in bytes.

    A hybrid's layers peak in their own parts: the Mamba / Gated DeltaNet mixers
    (:func:`state_mixer_stage_bytes`), the attention of the layers that have it (``attention``,
    as for any model; Falcon-H1's keeps its mixer's output and a scaled copy of its input beside
    it) and the MLP of the layers that have one (``mlp``). Attention's masks and rotary tables
    (``masks_and_tables``) exist only with attention.
    """
    tokens = batch * seq
    stages = [state_mixer_stage_bytes(spec, batch=batch, seq=seq, act=act)]
    if spec.attention_layers:
        beside = 2 * tokens * act * spec.hidden_size if spec.attention_layers == spec.state_mixer_layers else 0
        stages.append(attention + beside)
    else:
        masks_and_tables = 0
    if any(layer.mlp != "none" for layer, _n in spec.layer_groups):
        stages.append(mlp)
    return int(max(stages) + masks_and_tables)


def state_mixer_saved_bytes(spec: ModelSpec, *, layer: LayerSpec, seq: int, compute_bytes: int, autocast: bool,
                            fp32_weights: bool, trainable: bool) -> int:
    """Bytes per token that one layer's Mamba or Gated DeltaNet mixer keeps for backward (0 for other layers).

    Counted tensor by tensor from what autograd saves on the PyTorch path (traced with
    ``torch.utils._python_dispatch`` on each mixer, bf16, with and without autocast, trainable
    and frozen weights); a frozen mixer (LoRA) keeps only what the input's gradient needs.
    Chunked tensors are counted at the padded length.

    Args:
        spec: model shapes.
        layer: the layer kind.
        seq: tokens per sequence (the chunk padding).
        compute_bytes: bytes of the activation dtype.
        autocast: ``torch.autocast`` is on (the scans' matmuls then run in 16 bits).
        fp32_weights: the weights are fp32 (full fine-tuning under autocast).
        trainable: the mixer's weights are trainable (full fine-tuning).
    """
    a, full = compute_bytes, trainable
    mm = 2 if autocast else 4  # the einsums' outputs and operand copies inside the fp32 scans
    h = spec.hidden_size
    total = 0.0
    in_proj_input = (2 if autocast and fp32_weights else a) * h if full else 0
    if "mamba" in layer.mixers and spec.mamba is not None:
        m = spec.mamba
        d, n = m.inner_size, m.state_size
        if m.version == 1:
            r = m.dt_rank
            total += a * 2 * d + a * d + (a * d if full else 0)  # in_proj output; the conv output and its SiLU
            total += a * (r + 2 * n) + 4 * n  # x_proj's output, B.float()
            if m.dt_bc_norms:  # Jamba: fp32 copies, the dt norm's output (and the casts the norm weights need)
                total += 4 * (r + 2 * n) + a * r + (a * (r + 2 * n) if full else 0)
            total += 2 * a * d  # dt + bias, softplus
            # discrete_A, discrete_B and every step's fp32 state (autograd keeps them all), its 16-bit cast
            total += (12 + a) * d * n
            total += 4 * d + 4 * d + a * d + (a * d if full else 0)  # float(x), + x * D, silu(z), out_proj input
        else:
            hh, chunk = m.num_heads, m.chunk_size
            padded = math.ceil(seq / chunk) * chunk / seq
            chunks = math.ceil(seq / chunk)
            c = m.conv_channels
            cast = autocast and fp32_weights  # F.conv1d and the einsums get 16-bit casts of fp32 inputs
            # Falcon-H1 multiplies in_proj's output by its fp32 mup_vector: fp32 then, with fp32 weights.
            proj = 4 if (cast and spec.model_type == "falcon_h1") else a
            if not cast or not m.gated_norm:  # the conv (or, without the norm, silu(gate)) keeps in_proj's output
                total += proj * (d + c + hh)
            total += 2 * c if cast else 0  # the conv's own 16-bit input
            # conv output; an fp32 in_proj output gets the SiLU's output cast back to it (then x.float() is free)
            total += a * c + (4 * c if proj == 4 else 4 * d)
            total += 2 * a * hh + 4 * hh + (4 * hh if full else 0)  # dt chain, dt.float()
            total += (4 * d * padded) if full else 0  # pad(hidden_states) for D's gradient
            total += padded * (4 * hh * n + 4 * mm * hh * n)  # padded B, the einsums' B/C copies
            total += padded * (4 * hh * chunk + 2 * mm * hh * chunk)  # L, G, M (or M's 16-bit copy)
            total += padded * (3 * mm * d + 4 * d + 8 * hh)  # hidden copies, C_times_states, output; decays
            total += mm * hh * (d // hh) * n * (2 * chunks + 1) / seq  # chunk states (cat, einsum copy)
            if m.gated_norm:  # gated RMSNorm: fp32 gate, its SiLU, the product (+ weight's and out_proj's inputs)
                total += 12 * d + ((4 * d + (2 if autocast and fp32_weights else a) * d) if full else 0)
            else:  # Falcon-H1 without the norm: silu(gate), out_proj's input
                total += proj * d + (a * d if full else 0)
        total += in_proj_input
    if "linear_attention" in layer.mixers and spec.linear_attention is not None:
        g = spec.linear_attention
        hv, chunk = g.num_value_heads, 64
        kr, v, c = hv * g.key_head_dim, g.value_dim, g.conv_channels
        padded = math.ceil(seq / chunk) * chunk / seq
        total += 2 * a * c + a * hv + 4 * hv + (4 * hv if full else 0)  # conv input and output, beta, g
        total += 8 * kr  # fp32 q and k (l2norm's inputs)
        total += padded * (8 * kr + 4 * v + 4 * hv)  # padded q, k, v, beta/decay
        # k_beta, k_cumdecay, new_values, the decayed q and k, every chunk's v_new
        total += padded * (4 * kr + 4 * kr + 4 * v + 8 * kr + 4 * v)
        total += padded * 20 * hv * chunk * mm / 4  # pairwise decay, two matmuls, ut_system, intra-chunk attn
        total += padded * 12 * hv + 4 * hv * g.key_head_dim * g.value_head_dim / chunk  # decays, chunk states
        total += 12 * v + a * v + (2 * a * v if full else 0)  # gated norm: fp32 input and gate, SiLU, output
        total += in_proj_input
    return int(total)


def state_mixer_backward_bytes(spec: ModelSpec) -> int:
    """Bytes per token of gradient buffers a state mixer's backward adds beyond the layer's (0 for most models).

    Mamba-1's PyTorch scan indexes ``discrete_A[:, :, index]`` and ``deltaB_u[:, :, index]`` once per
    token; the backward of each index is a zero-filled ``(batch, D, tokens, N)`` fp32 tensor, and
    autograd sums them into one per input: at the peak two of those and their two running sums
    are alive, ``4 x 4 x D x N`` bytes per token (traced). The Mamba-2 and Gated DeltaNet backward
    passes free their saved blocks about as fast as they form gradients of that size (traced:
    within a few percent of the layer's other backward terms), and add nothing here.
    """
    if spec.mamba is not None and spec.mamba.version == 1 and spec.count_layers(mixer="mamba"):
        return 16 * spec.mamba.inner_size * spec.mamba.state_size
    return 0


def mixer_backward_weight_grad_bytes(spec: ModelSpec, *, param_bytes: int, trainable: bool) -> int:
    """Weight gradients alive when the last layer's Mamba-1 backward peaks: its MLP's (their backward ran first)."""
    last = spec.layers[-1]
    if not trainable or not state_mixer_backward_bytes(spec) or "mamba" not in last.mixers:
        return 0
    return param_bytes * spec.mlp_block_parameters(last)
