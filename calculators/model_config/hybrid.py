"""Readers of the hybrid families, whose layers are not all attention: Qwen3-Next, Nemotron-H and Mamba-2.

* **Qwen3-Next** (``qwen3_next``): ``layer_types`` names each layer ``linear_attention``
  (Gated DeltaNet) or ``full_attention`` (default: every fourth layer full, as
  ``Qwen3NextConfig``'s ``full_attention_interval`` 4 sets it); the full-attention layers
  gate their output (q_proj emits ``2 x heads x head_dim``) and normalise q and k per head;
  every layer is MoE (512 experts, top-10, one gated shared expert) unless listed in
  ``mlp_only_layers`` or off ``decoder_sparse_step``.
* **Nemotron-H** (``nemotron_h``; Nemotron Nano 2): each block has ONE mixer and one
  RMSNorm: Mamba-2 (``M``), attention (``*``), a squared-ReLU MLP with up and down only
  (``-``) or a MoE of such experts (``E``), spelled by ``hybrid_override_pattern`` or listed in
  ``layers_block_type``.
* **Mamba-2** (``mamba2``): every block is one RMSNorm and one Mamba-2 mixer; no attention,
  no MLP.

Parameter layouts follow transformers 5.23's ``modeling_qwen3_next.py``,
``modeling_nemotron_h.py`` and ``modeling_mamba2.py``.

>>> spec = read_hybrid({"model_type": "mamba2", "hidden_size": 64, "num_hidden_layers": 2, "num_heads": 4,
...     "head_dim": 32, "state_size": 16, "n_groups": 1, "expand": 2, "vocab_size": 100}, "mamba2", [])
>>> spec.attention_layers, spec.state_layers
(0, 2)
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from calculators.errors import ConfigError
from calculators.model import ModelSpec, MoESpec
from calculators.model_config.common import build_layers, listed_attention_kinds, moe_mask, read_common
from calculators.model_config.layout import acknowledge, with_values
from calculators.model_config.keys import (
    MAX_EXPERTS,
    MAX_HEADS,
    MAX_HIDDEN,
    MAX_LAYERS,
    MAX_TOKENS,
    MAX_WIDTH,
    read_bool,
    read_int,
    read_int_list,
    read_opt_int,
)
from calculators.model_layers import LinearAttentionSpec, MambaSpec

#: The families this module reads (``config.model_type``).
MODEL_TYPES = ("qwen3_next", "nemotron_h", "mamba2")

#: Nemotron-H's pattern letters (NemotronHConfig._pattern_to_list) and its list spellings, old and new.
_NEMOTRON_BLOCKS = {"M": "mamba", "*": "attention", "-": "mlp", "E": "moe",
                    "mamba": "mamba", "linear_attention": "mamba", "attention": "attention",
                    "full_attention": "attention", "mlp": "mlp", "moe": "moe"}
_NEMOTRON_LAYER = {"mamba": (("mamba",), "none"), "attention": (("full_attention",), "none"),
                   "mlp": ((), "dense"), "moe": ((), "moe")}


def read_hybrid(data: Mapping[str, Any], model_type: str, notes: list[str], *, name: str | None = None) -> ModelSpec:
    """Read a config of one of :data:`MODEL_TYPES`."""
    readers = {"qwen3_next": _qwen3_next, "nemotron_h": _nemotron_h, "mamba2": _mamba2}
    spec = readers[model_type](data, model_type)
    display = name or str(data.get("_name_or_path") or model_type)
    return ModelSpec(name=display, **spec, notes=tuple(notes))


def _qwen3_next(data: Mapping[str, Any], model_type: str) -> dict[str, Any]:
    fields = read_common(data, model_type)
    layers = fields["num_layers"]
    kinds = listed_attention_kinds(data, layers, allowed=("linear_attention", "full_attention"))
    if kinds is None:
        interval = read_int(data, "full_attention_interval", maximum=layers, default=4)
        kinds = ["full_attention" if (i + 1) % interval == 0 else "linear_attention" for i in range(layers)]
    num_experts = read_int(data, "num_experts", maximum=MAX_EXPERTS, default=512)
    step = read_int(data, "decoder_sparse_step", maximum=layers, default=1)
    dense = read_int_list(data, "mlp_only_layers", maximum=layers - 1)
    shared = read_int(data, "shared_expert_intermediate_size", maximum=MAX_WIDTH, default=512, minimum=0)
    moe = MoESpec(
        num_experts=num_experts,
        experts_per_token=read_int(data, "num_experts_per_tok", maximum=num_experts, default=10),
        expert_intermediate_size=read_int(data, "moe_intermediate_size", maximum=MAX_WIDTH, default=512),
        num_shared_experts=1 if shared else 0,
        shared_intermediate_size=shared,
        shared_expert_gate=bool(shared),
    )
    linear = LinearAttentionSpec(
        num_key_heads=read_int(data, "linear_num_key_heads", maximum=MAX_HEADS, default=16),
        num_value_heads=read_int(data, "linear_num_value_heads", maximum=MAX_HEADS, default=32),
        key_head_dim=read_int(data, "linear_key_head_dim", maximum=MAX_HIDDEN, default=128),
        value_head_dim=read_int(data, "linear_value_head_dim", maximum=MAX_HIDDEN, default=128),
        conv_kernel=read_int(data, "linear_conv_kernel_dim", maximum=MAX_TOKENS, default=4),
    )
    if linear.num_value_heads % linear.num_key_heads:
        raise ConfigError("linear_num_value_heads", linear.num_value_heads,
                          f"a multiple of linear_num_key_heads ({linear.num_key_heads})")
    return {
        **fields,
        "head_dim": read_int(data, "head_dim", maximum=MAX_HIDDEN, default=256),
        "qk_norm": True,
        "attention_output_gate": True,
        "moe": moe,
        "linear_attention": linear,
        "layers": build_layers(kinds, moe_mask(layers, step=step, dense_layers=dense)),
    }


def _nemotron_h(data: Mapping[str, Any], model_type: str) -> dict[str, Any]:
    blocks = _nemotron_blocks(data)
    fields = read_common(with_values(data, {"num_hidden_layers": len(blocks)}), model_type)
    heads = read_int(data, "mamba_num_heads", maximum=MAX_HEADS, default=128)
    head_dim = read_int(data, "mamba_head_dim", maximum=MAX_HIDDEN, default=64)
    mamba = MambaSpec(
        version=2,
        inner_size=heads * head_dim,
        state_size=read_int(data, "ssm_state_size", maximum=MAX_HIDDEN, default=128),
        conv_kernel=read_int(data, "conv_kernel", maximum=MAX_TOKENS, default=4),
        num_heads=heads,
        n_groups=read_int(data, "n_groups", maximum=MAX_HEADS, default=8),
        proj_bias=read_bool(data, "use_bias", False) or read_bool(data, "mamba_proj_bias", False),
        conv_bias=read_bool(data, "use_conv_bias", True),
        # NemotronHConfig: chunk_size (128), or the older mamba_chunk_size it pops in its place
        chunk_size=read_int(data, "mamba_chunk_size" if "mamba_chunk_size" in data else "chunk_size",
                            maximum=MAX_TOKENS, default=128),
    )
    # NemotronHMamba2Mixer's width is heads x head_dim; ``expand`` (NemotronHConfig's) sizes nothing,
    # nor do the activation, time-step limits and cache dtype of the scan.
    acknowledge(data, "expand", "mamba_hidden_act", "mamba_dt_*", "mamba_ssm_cache_dtype",
                "time_step_*", "use_mamba_kernels")
    moe = None
    if "moe" in blocks:
        if data.get("moe_latent_size") is not None:
            raise ConfigError("moe_latent_size", data.get("moe_latent_size"),
                              "null (latent-projected experts are not modelled)")
        num_experts = read_int(data, "n_routed_experts", maximum=MAX_EXPERTS, default=8)
        shared = read_int(data, "n_shared_experts", maximum=MAX_EXPERTS, default=1, minimum=0)
        moe = MoESpec(
            num_experts=num_experts,
            experts_per_token=read_int(data, "num_experts_per_tok", maximum=num_experts, default=2),
            expert_intermediate_size=read_int(data, "moe_intermediate_size", maximum=MAX_WIDTH, default=7688),
            num_shared_experts=shared,
            shared_intermediate_size=read_int(data, "moe_shared_expert_intermediate_size", maximum=MAX_WIDTH,
                                              default=7688) if shared else 0,
            router_bias_per_expert=1,  # e_score_correction_bias, stored with the router
        )
    layer_kinds = [_NEMOTRON_LAYER[block] for block in blocks]
    return {
        **fields,
        "qkv_bias": False,
        "o_bias": False,
        "mlp_gated": False,
        "norms_per_layer": 1,
        "fp32_logits": True,  # NemotronHForCausalLM: logits = self.lm_head(hidden_states).float()
        "mamba": mamba,
        "moe": moe,
        "layers": build_layers([mixers for mixers, _ in layer_kinds], [mlp for _, mlp in layer_kinds]),
    }


def _nemotron_blocks(data: Mapping[str, Any]) -> list[str]:
    """Nemotron-H's block kinds: from ``hybrid_override_pattern`` or ``layers_block_type`` (one must be set)."""
    pattern = data.get("hybrid_override_pattern")
    listed = data.get("layers_block_type") or data.get("layer_types")
    if pattern is not None:
        if not isinstance(pattern, str) or not pattern or len(pattern) > MAX_LAYERS \
                or set(pattern) - {"M", "*", "-", "E"}:
            raise ConfigError("hybrid_override_pattern", pattern, "a string of M (Mamba-2), * (attention), "
                                                                   "- (MLP) and E (MoE), one letter per layer")
        blocks = [_NEMOTRON_BLOCKS[c] for c in pattern]
    elif isinstance(listed, list) and listed and all(isinstance(b, str) and b in _NEMOTRON_BLOCKS for b in listed):
        blocks = [_NEMOTRON_BLOCKS[b] for b in listed]
    else:
        raise ConfigError("hybrid_override_pattern", pattern, "a pattern such as 'M-M-M*-' (or layers_block_type: "
                                                               "a list of mamba, attention, mlp, moe)")
    if "num_hidden_layers" in data and read_int(data, "num_hidden_layers", maximum=MAX_LAYERS) != len(blocks):
        raise ConfigError("num_hidden_layers", data.get("num_hidden_layers"),
                          f"{len(blocks)}, the length of the layer pattern")
    return blocks


def _mamba2(data: Mapping[str, Any], model_type: str) -> dict[str, Any]:
    # No attention and no MLP: the attention and MLP shapes are placeholders no layer uses.
    fields = read_common(with_values(data, {"num_attention_heads": 1, "intermediate_size": 1}), model_type)
    acknowledge(data, "time_step_*")
    hidden = fields["hidden_size"]
    heads = read_int(data, "num_heads", maximum=MAX_HEADS, default=128)
    head_dim = read_int(data, "head_dim", maximum=MAX_HIDDEN, default=64)
    inner = read_int(data, "expand", maximum=MAX_HEADS, default=2) * hidden
    if heads * head_dim != inner:
        raise ConfigError("num_heads", heads, f"num_heads x head_dim = expand x hidden_size ({inner}), as "
                                              "Mamba2Mixer requires")
    mamba = MambaSpec(
        version=2,
        inner_size=inner,
        state_size=read_int(data, "state_size", maximum=MAX_HIDDEN, default=128),
        conv_kernel=read_int(data, "conv_kernel", maximum=MAX_TOKENS, default=4),
        num_heads=heads,
        n_groups=read_int(data, "n_groups", maximum=MAX_HEADS, default=8),
        proj_bias=read_bool(data, "use_bias", False),
        conv_bias=read_bool(data, "use_conv_bias", True),
        chunk_size=read_int(data, "chunk_size", maximum=MAX_TOKENS, default=256),
    )
    layers = fields["num_layers"]
    return {
        **fields,
        "head_dim": head_dim,
        "num_kv_heads": 1,
        "norms_per_layer": 1,
        "mamba": mamba,
        "residual_in_fp32": read_bool(data, "residual_in_fp32", True),  # Mamba2Config's default
        "fp32_logits": True,  # Mamba2ForCausalLM: lm_head(...).float()
        "layers": build_layers([("mamba",)] * layers, ["none"] * layers),
        "max_position_embeddings": read_opt_int(data, "max_position_embeddings", maximum=MAX_TOKENS),
    }
