"""What every decoder config shares: hidden size, heads, vocabulary, MLP width, biases, and layer lists.

A family's reader (:mod:`calculators.model_config.classic`,
:mod:`calculators.model_config.hybrid`, ...) starts from :func:`read_common`, which reads
and checks the keys all decoders spell alike, and then sets what its architecture does
differently; :func:`attention_kinds` and :func:`mlp_kinds` build the per-layer lists
that :class:`~calculators.model.ModelSpec` keeps.

>>> fields = read_common({"model_type": "llama", "hidden_size": 64, "num_hidden_layers": 2,
...     "num_attention_heads": 4, "intermediate_size": 128, "vocab_size": 10}, "llama")
>>> fields["head_dim"], fields["num_kv_heads"]  # 64 / 4 heads; no num_key_value_heads: MHA
(16, 4)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from calculators.errors import ConfigError
from calculators.model_config.keys import (
    MAX_HEADS,
    MAX_HIDDEN,
    MAX_LAYERS,
    MAX_TOKENS,
    MAX_VOCAB,
    MAX_WIDTH,
    read_bool,
    read_int,
    read_opt_int,
    read_str_list,
)
from calculators.model_layers import LayerSpec

#: The attention kinds a ``layer_types`` list may name for a pure-attention model.
ATTENTION_TYPES = ("full_attention", "sliding_attention")


def read_common(data: Mapping[str, Any], model_type: str, *, layers_key: str = "num_hidden_layers",
                heads_required: bool = True) -> dict[str, Any]:
    """The :class:`~calculators.model.ModelSpec` fields every decoder config spells alike, checked.

    Returns a dict of keyword arguments: name-independent shapes (hidden size, layers, heads,
    KV heads, head_dim, MLP width, vocabulary), the tied head and the bias flags as the
    config states them, ``max_position_embeddings``.
    """
    hidden = read_int(data, "hidden_size", maximum=MAX_HIDDEN)
    layers = read_int(data, layers_key, maximum=MAX_LAYERS)
    heads = read_int(data, "num_attention_heads", maximum=MAX_HEADS) if heads_required or \
        data.get("num_attention_heads") is not None else 1
    kv_heads = read_int(data, "num_key_value_heads", maximum=MAX_HEADS, default=heads)
    if heads % kv_heads:
        raise ConfigError("num_key_value_heads", kv_heads, f"a divisor of num_attention_heads ({heads})")
    head_dim = read_opt_int(data, "head_dim", maximum=MAX_HIDDEN)
    if head_dim is None:
        if hidden % heads:
            raise ConfigError("head_dim", None, f"set explicitly, since hidden_size {hidden} is not a multiple of "
                                                f"num_attention_heads {heads}")
        head_dim = hidden // heads
    qkv_bias = read_bool(data, "attention_bias", False)
    return {
        "model_type": model_type,
        "hidden_size": hidden,
        "num_layers": layers,
        "num_attention_heads": heads,
        "num_kv_heads": kv_heads,
        "head_dim": head_dim,
        "intermediate_size": read_int(data, "intermediate_size", maximum=MAX_WIDTH,
                                      default=data.get("moe_intermediate_size")),
        "vocab_size": read_int(data, "vocab_size", maximum=MAX_VOCAB),
        "tie_word_embeddings": read_bool(data, "tie_word_embeddings", False),
        "qkv_bias": qkv_bias,
        "o_bias": qkv_bias,
        "mlp_bias": read_bool(data, "mlp_bias", False),
        "max_position_embeddings": read_opt_int(data, "max_position_embeddings", maximum=MAX_TOKENS),
    }


def read_aliased_int(data: Mapping[str, Any], keys: tuple[str, ...], *, maximum: int, default: int | None = None,
                     minimum: int = 1) -> int:
    """An integer that configs spell under several names (transformers 5 saves ``num_local_experts`` where
    older Qwen MoE configs say ``num_experts``): the first present; two present must agree."""
    present = [key for key in keys if data.get(key) is not None]
    if not present:
        return read_int(data, keys[0], maximum=maximum, default=default, minimum=minimum)
    value = read_int(data, present[0], maximum=maximum, minimum=minimum)
    for other in present[1:]:
        if read_int(data, other, maximum=maximum, minimum=minimum) != value:
            raise ConfigError(other, data.get(other), f"{value}, as {present[0]} says (the same count)")
    return value


def listed_attention_kinds(data: Mapping[str, Any], layers: int,
                           allowed: tuple[str, ...] = ATTENTION_TYPES) -> list[str] | None:
    """The config's ``layer_types`` (one kind per layer, each in ``allowed``), or ``None`` when it has none."""
    if not data.get("layer_types"):
        return None
    return read_str_list(data, "layer_types", allowed=allowed, length=layers)


def sliding_kinds(layers: int, sliding: Sequence[int]) -> list[str]:
    """``layers`` attention kinds: ``sliding_attention`` at the indices in ``sliding``, else full."""
    chosen = set(sliding)
    return ["sliding_attention" if i in chosen else "full_attention" for i in range(layers)]


def build_layers(mixers: Sequence[str | tuple[str, ...]], mlps: Sequence[str],
                 widths: Sequence[int | None] | None = None,
                 rope: Sequence[bool] | None = None) -> tuple[LayerSpec, ...]:
    """One :class:`~calculators.model_layers.LayerSpec` per layer from parallel lists of mixers and MLP kinds
    (and, where some layers are NoPE, whether each applies rotary embeddings)."""
    widths = widths if widths is not None else [None] * len(mlps)
    rope = rope if rope is not None else [True] * len(mlps)
    return tuple(LayerSpec(m if isinstance(m, tuple) else (m,), mlp, width, has_rope)
                 for m, mlp, width, has_rope in zip(mixers, mlps, widths, rope, strict=True))


def moe_mask(layers: int, *, first_dense: int = 0, step: int = 1, dense_layers: Sequence[int] = (),
             offset: int | None = None) -> list[str]:
    """``"moe"`` or ``"dense"`` per layer.

    A layer is MoE when it is not among the ``first_dense`` layers, not listed in
    ``dense_layers``, and falls on the ``step`` (``(i + 1) % step == 0``, as Qwen's
    ``decoder_sparse_step`` and Llama 4's ``interleave_moe_layer_step`` place it; with
    ``offset``, ``i % step == offset`` as Jamba's ``expert_layer_offset``).
    """
    dense = set(dense_layers)
    kinds = []
    for i in range(layers):
        on_step = (i % step == offset) if offset is not None else ((i + 1) % step == 0)
        kinds.append("moe" if i >= first_dense and i not in dense and on_step else "dense")
    return kinds
