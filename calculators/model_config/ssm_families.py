"""Readers of the Mamba families: Jamba, Falcon-H1, Granite 4 (hybrid), Mamba-1 and Falcon Mamba.

* **Jamba** (``jamba``; Jamba v0.1, 1.5/1.6 Mini and Large): Mamba-1 mixers with RMSNorms on
  dt, B and C; attention in layer ``i`` when ``i % attn_layer_period == attn_layer_offset``;
  a MoE MLP (``num_experts``, top ``num_experts_per_tok``, no shared expert) when
  ``i % expert_layer_period == expert_layer_offset``, a gated dense MLP elsewhere; no biases
  in attention or MLP.
* **Falcon-H1** (``falcon_h1``; 0.5B to 34B, Tiny): every layer runs attention AND a
  Mamba-2 mixer side by side on the same normed input, then a gated MLP. The mixer is
  ``mamba_n_heads x mamba_d_head = mamba_d_ssm`` wide (``mamba_expand x hidden`` when
  ``mamba_d_ssm`` is null); its gated RMSNorm exists only with ``mamba_rms_norm``; ``in_proj``
  has a bias with ``mamba_proj_bias``, ``out_proj`` with ``projectors_bias``. The µP
  multipliers scale activations and a non-persistent ``mup_vector`` buffer: no parameter.
* **Granite 4.0** (``granitemoehybrid``; H-Small, H-Tiny, H-Micro and the attention-only
  Micro): ``layer_types`` names each layer ``mamba`` (Mamba-2) or ``attention``; every layer
  has a gated shared MLP of ``shared_intermediate_size`` and, when ``num_local_experts`` is
  not 0, a MoE of ``intermediate_size``-wide experts beside it. ``position_embedding_type``
  (``rope`` or none) and the multipliers change no tensor.
* **Mamba** (``mamba``, state-spaces) and **Falcon Mamba** (``falcon_mamba``): every block
  is one RMSNorm and one Mamba-1 mixer; Falcon Mamba's dt/B/C norms have no weights.

Parameter layouts follow transformers 5.23's ``modeling_jamba.py``,
``modeling_falcon_h1.py``, ``modeling_granitemoehybrid.py``, ``modeling_mamba.py`` and
``modeling_falcon_mamba.py``.

>>> spec = read_ssm({"model_type": "jamba", "hidden_size": 64, "num_hidden_layers": 8, "num_attention_heads": 4,
...     "num_key_value_heads": 2, "intermediate_size": 128, "vocab_size": 100, "num_experts": 4}, "jamba", [])
>>> spec.attention_layers, spec.state_layers, spec.num_moe_layers  # attention in layer 4, experts in odd layers
(1, 7, 4)
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from calculators.errors import ConfigError
from calculators.model import ModelSpec, MoESpec
from calculators.model_config.common import build_layers, moe_mask, read_common
from calculators.model_config.keys import (
    MAX_EXPERTS,
    MAX_HEADS,
    MAX_HIDDEN,
    MAX_LAYERS,
    MAX_TOKENS,
    MAX_WIDTH,
    read_bool,
    read_int,
    read_str_list,
)
from calculators.model_config.layout import acknowledge, with_values
from calculators.model_layers import MambaSpec

#: The families this module reads (``config.model_type``).
MODEL_TYPES = ("jamba", "falcon_h1", "granitemoehybrid", "mamba", "falcon_mamba")

#: Granite 4's ``layer_types`` spellings (transformers remaps the legacy ``mamba`` / ``attention``).
_GRANITE_MIXERS = {"mamba": "mamba", "linear_attention": "mamba", "attention": "full_attention",
                   "full_attention": "full_attention"}
#: Keys that tune a scan's numerics or the kernel it runs, not a tensor's shape.
_SCAN_KNOBS = ("use_mamba_kernels", "use_mambapy", "use_associative_scan", "time_step_*", "mamba_dt_min",
               "mamba_dt_max", "mamba_dt_init*", "mamba_dt_scale", "mamba_dt_init_floor")


def read_ssm(data: Mapping[str, Any], model_type: str, notes: list[str], *, name: str | None = None) -> ModelSpec:
    """Read a config of one of :data:`MODEL_TYPES`."""
    readers = {"jamba": _jamba, "falcon_h1": _falcon_h1, "granitemoehybrid": _granite_hybrid,
               "mamba": _mamba1, "falcon_mamba": _mamba1}
    spec = readers[model_type](data, model_type)
    display = name or str(data.get("_name_or_path") or model_type)
    return ModelSpec(name=display, **spec, notes=tuple(notes))


def _dt_rank(data: Mapping[str, Any], key: str, hidden: int) -> int:
    """A Mamba-1 time-step rank: an integer, or ``"auto"`` (the default) for ``ceil(hidden / 16)``."""
    value = data.get(key, "auto")
    if value == "auto" or value is None:
        return math.ceil(hidden / 16)
    return read_int(data, key, maximum=MAX_HIDDEN)


def _mamba2_heads(data: Mapping[str, Any], inner: int, *, heads_key: str, head_key: str) -> int:
    """Mamba-2 heads, checked against the head width (``"auto"``: inner / heads) as the config classes check it."""
    heads = read_int(data, heads_key, maximum=MAX_HEADS, default=128)
    head_dim = data.get(head_key, "auto")
    if inner % heads:
        raise ConfigError(heads_key, heads, f"a divisor of the Mamba width {inner}")
    if head_dim not in ("auto", None) and read_int(data, head_key, maximum=MAX_HIDDEN) * heads != inner:
        raise ConfigError(head_key, head_dim, f"{inner // heads} ('auto'): {heads_key} x {head_key} must equal the "
                                              f"Mamba width {inner}")
    return heads


def _class_kv_heads(data: Mapping[str, Any]) -> Mapping[str, Any]:
    """JambaConfig and FalconH1Config default ``num_key_value_heads`` to 8 when it is absent (null: MHA)."""
    return data if "num_key_value_heads" in data else with_values(data, {"num_key_value_heads": 8})


def _jamba(data: Mapping[str, Any], model_type: str) -> dict[str, Any]:
    fields = read_common(_class_kv_heads(data), model_type)
    layers, hidden = fields["num_layers"], fields["hidden_size"]
    period = read_int(data, "attn_layer_period", maximum=MAX_LAYERS, default=8)
    offset = read_int(data, "attn_layer_offset", maximum=period - 1, default=4, minimum=0)
    expert_period = read_int(data, "expert_layer_period", maximum=MAX_LAYERS, default=2)
    expert_offset = read_int(data, "expert_layer_offset", maximum=expert_period - 1, default=1, minimum=0)
    experts_key = "num_experts" if "num_experts" in data else "num_local_experts"
    num_experts = read_int(data, experts_key, maximum=MAX_EXPERTS, default=16)
    mixers = ["full_attention" if i % period == offset else "mamba" for i in range(layers)]
    # JambaSparseMoeBlock only where layers_num_experts > 1: one expert is a plain JambaMLP.
    mlps = moe_mask(layers, step=expert_period, offset=expert_offset) if num_experts > 1 else ["dense"] * layers
    moe = None
    if num_experts > 1:
        moe = MoESpec(num_experts=num_experts,
                      experts_per_token=read_int(data, "num_experts_per_tok", maximum=num_experts, default=2),
                      expert_intermediate_size=fields["intermediate_size"])
    mamba = MambaSpec(
        version=1,
        inner_size=read_int(data, "mamba_expand", maximum=MAX_HEADS, default=2) * hidden,
        state_size=read_int(data, "mamba_d_state", maximum=MAX_HIDDEN, default=16),
        conv_kernel=read_int(data, "mamba_d_conv", maximum=MAX_TOKENS, default=4),
        dt_rank=_dt_rank(data, "mamba_dt_rank", hidden),
        proj_bias=read_bool(data, "mamba_proj_bias", False),
        conv_bias=read_bool(data, "mamba_conv_bias", True),
        gated_norm=False,
        dt_bc_norms=True,
    )
    acknowledge(data, *_SCAN_KNOBS)
    # JambaAttention and JambaMLP build their projections without biases whatever the config says.
    return {**fields, "qkv_bias": False, "o_bias": False, "mlp_bias": False, "moe": moe, "mamba": mamba,
            "layers": build_layers(mixers, mlps)}


def _falcon_h1(data: Mapping[str, Any], model_type: str) -> dict[str, Any]:
    fields = read_common(_class_kv_heads(data), model_type)
    layers, hidden = fields["num_layers"], fields["hidden_size"]
    # FalconH1Config: mamba_d_ssm defaults to 1024 when absent; an explicit null means mamba_expand x hidden.
    inner = (read_int(data, "mamba_d_ssm", maximum=MAX_WIDTH, default=1024) if data.get("mamba_d_ssm", 0) is not None
             else read_int(data, "mamba_expand", maximum=MAX_HEADS, default=2) * hidden)
    heads = _mamba2_heads(data, inner, heads_key="mamba_n_heads", head_key="mamba_d_head")
    mamba = MambaSpec(
        version=2,
        inner_size=inner,
        state_size=read_int(data, "mamba_d_state", maximum=MAX_HIDDEN, default=256),
        conv_kernel=read_int(data, "mamba_d_conv", maximum=MAX_TOKENS, default=4),
        num_heads=heads,
        n_groups=read_int(data, "mamba_n_groups", maximum=MAX_HEADS, default=1),
        proj_bias=read_bool(data, "mamba_proj_bias", False),
        conv_bias=read_bool(data, "mamba_conv_bias", True),
        gated_norm=read_bool(data, "mamba_rms_norm", False),
        out_proj_bias=read_bool(data, "projectors_bias", False),
        chunk_size=read_int(data, "mamba_chunk_size", maximum=MAX_TOKENS, default=256),
    )
    if heads % mamba.n_groups:
        raise ConfigError("mamba_n_groups", mamba.n_groups, f"a divisor of mamba_n_heads ({heads})")
    # mamba_expand sizes nothing once mamba_d_ssm is set; the µP multipliers scale activations (and a
    # non-persistent mup_vector buffer); the gate's order changes no tensor's shape;
    # FalconH1DecoderLayer builds its MLP whatever mamba_use_mlp says (transformers 5.23).
    acknowledge(data, "mamba_expand", "mamba_norm_before_gate", "mamba_use_mlp",
                "ssm_multipliers", "ssm_in_multiplier", "ssm_out_multiplier", *_SCAN_KNOBS)
    return {**fields, "mamba": mamba, "layers": build_layers([("full_attention", "mamba")] * layers,
                                                             ["dense"] * layers)}


def _granite_hybrid(data: Mapping[str, Any], model_type: str) -> dict[str, Any]:
    shared = read_int(data, "shared_intermediate_size", maximum=MAX_WIDTH, default=1024)
    fields = read_common(with_values(data, {"intermediate_size": data.get("intermediate_size", 11008)}), model_type)
    layers, hidden = fields["num_layers"], fields["hidden_size"]
    if data.get("layer_types"):
        kinds = read_str_list(data, "layer_types", allowed=tuple(_GRANITE_MIXERS), length=layers)
        mixers = [_GRANITE_MIXERS[kind] for kind in kinds]
    else:  # GraniteMoeHybridConfig: every layer Mamba-2
        mixers = ["mamba"] * layers
    position = data.get("position_embedding_type")
    if position not in (None, "rope", "nope"):
        raise ConfigError("position_embedding_type", position, "'rope', 'nope' or null (no rotary embedding)")
    num_experts = read_int(data, "num_local_experts", maximum=MAX_EXPERTS, default=8, minimum=0)
    moe = None
    if num_experts:
        moe = MoESpec(num_experts=num_experts,
                      experts_per_token=read_int(data, "num_experts_per_tok", maximum=num_experts, default=2),
                      expert_intermediate_size=fields["intermediate_size"], num_shared_experts=1,
                      shared_intermediate_size=shared)
    mamba = None
    if "mamba" in mixers:
        inner = read_int(data, "mamba_expand", maximum=MAX_HEADS, default=2) * hidden
        mamba = MambaSpec(
            version=2,
            inner_size=inner,
            state_size=read_int(data, "mamba_d_state", maximum=MAX_HIDDEN, default=256),
            conv_kernel=read_int(data, "mamba_d_conv", maximum=MAX_TOKENS, default=4),
            num_heads=_mamba2_heads(data, inner, heads_key="mamba_n_heads", head_key="mamba_d_head"),
            n_groups=read_int(data, "mamba_n_groups", maximum=MAX_HEADS, default=1),
            proj_bias=read_bool(data, "mamba_proj_bias", False),
            conv_bias=read_bool(data, "mamba_conv_bias", True),
            chunk_size=read_int(data, "mamba_chunk_size", maximum=MAX_TOKENS, default=256),
        )
    acknowledge(data, "mamba_*", *_SCAN_KNOBS)  # an attention-only Micro's Mamba keys build nothing
    # The shared MLP (input_linear: hidden -> 2 x shared, output_linear) is a gated MLP of width
    # shared_intermediate_size: with experts it is their shared expert, without them the layer's MLP.
    return {
        **fields,
        "intermediate_size": fields["intermediate_size"] if num_experts else shared,
        "mlp_bias": False,
        "mlp_lora_names": (),  # input_linear and output_linear: no gate/up/down module for PEFT to match
        "moe": moe,
        "mamba": mamba,
        "layers": build_layers(mixers, ["moe" if num_experts else "dense"] * layers),
    }


def _mamba1(data: Mapping[str, Any], model_type: str) -> dict[str, Any]:
    # No attention and no MLP: the attention and MLP shapes are placeholders no layer uses.
    fields = read_common(with_values(data, {"num_attention_heads": 1, "intermediate_size": 1}), model_type)
    hidden, layers = fields["hidden_size"], fields["num_layers"]
    mamba = MambaSpec(
        version=1,
        inner_size=read_int(data, "expand", maximum=MAX_HEADS, default=2) * hidden,
        state_size=read_int(data, "state_size", maximum=MAX_HIDDEN, default=16),
        conv_kernel=read_int(data, "conv_kernel", maximum=MAX_TOKENS, default=4),
        dt_rank=_dt_rank(data, "time_step_rank", hidden),
        proj_bias=read_bool(data, "use_bias", False),
        conv_bias=read_bool(data, "use_conv_bias", True),
        gated_norm=False,
    )
    acknowledge(data, *_SCAN_KNOBS)
    return {
        **fields,
        "tie_word_embeddings": read_bool(data, "tie_word_embeddings", True),  # MambaConfig's default
        "residual_in_fp32": read_bool(data, "residual_in_fp32", True),
        "fp32_logits": True,  # MambaForCausalLM / FalconMambaForCausalLM: lm_head(...).float()
        "head_dim": hidden,
        "num_kv_heads": 1,
        "norms_per_layer": 1,
        "mamba": mamba,
        "layers": build_layers([("mamba",)] * layers, ["none"] * layers),
    }
