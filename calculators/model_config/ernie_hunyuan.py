"""Readers of Baidu's ERNIE 4.5 and Tencent's Hunyuan (dense and MoE) families.

* **ERNIE 4.5 MoE** (``ernie4_5_moe``; 21B-A3B, 300B-A47B): a layer ``i`` is MoE when
  ``(i + 1) % moe_layer_interval == 0`` and ``moe_layer_start_index <= i <= moe_layer_end_index``
  (end ``-1``: the last layer), else dense (``intermediate_size``); ``moe_num_experts`` routed
  experts (top ``moe_k``) without biases, ``moe_num_shared_experts`` shared experts as one MLP,
  a router with a correction bias (``moe_statics.e_score_correction_bias``, a parameter);
  ``use_bias`` puts biases on q/k/v/o, on every dense and shared MLP and on the output head.
* **ERNIE 4.5** (``ernie4_5``; 0.3B): Llama-style with ``head_dim`` 128 by default, ``use_bias``
  on q/k/v/o and the MLP, a tied head by default.
* **Hunyuan** (``hunyuan_v1_moe``, and ``hunyuan`` as Hunyuan-A13B's first config named it;
  ``hunyuan_v1_dense``): per-head q/k RMSNorms, ``attention_bias`` on q/k/v/o; the MoE layers
  hold ``num_experts`` experts and one shared MLP ``intermediate_size x num_shared_expert``
  wide, with per-layer lists (``moe_topk``, ``num_experts``, ``moe_intermediate_size``,
  ``num_shared_expert``) that must hold one value.

Parameter layouts follow transformers 5.23's ``modeling_ernie4_5_moe.py``, ``modeling_ernie4_5.py``,
``modeling_hunyuan_v1_moe.py`` and ``modeling_hunyuan_v1_dense.py``; absent keys take the defaults of
their configuration classes, with a note.

>>> spec = read_ernie_hunyuan({"model_type": "ernie4_5", "hidden_size": 1024, "num_hidden_layers": 18,
...     "num_attention_heads": 16, "num_key_value_heads": 2, "intermediate_size": 3072,
...     "vocab_size": 103424}, "ernie4_5", [])
>>> spec.head_dim, spec.parameters  # ERNIE-4.5-0.3B: head_dim 128, not 1024 / 16
(128, 360748032)
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from calculators.errors import ConfigError
from calculators.model import ModelSpec, MoESpec
from calculators.model_config.common import build_layers, read_common
from calculators.model_config.keys import (
    MAX_EXPERTS,
    MAX_HIDDEN,
    MAX_WIDTH,
    read_bool,
    read_int,
)
from calculators.model_config.layout import acknowledge, with_values

#: The families this module reads (``config.model_type``).
MODEL_TYPES = ("ernie4_5_moe", "ernie4_5", "hunyuan_v1_moe", "hunyuan", "hunyuan_v1_dense")

#: What each configuration class (transformers 5.23) sets when config.json leaves a key out.
DEFAULTS: dict[str, dict[str, Any]] = {
    "ernie4_5_moe": {"moe_num_experts": 64, "moe_k": 6, "moe_intermediate_size": 1536, "moe_num_shared_experts": 2,
                     "moe_layer_start_index": 1, "moe_layer_end_index": -1, "moe_layer_interval": 1},
    "hunyuan_v1_moe": {"num_experts": 1, "moe_topk": 1},
}
#: ERNIE's MoE keys that size no tensor: expert capacity, the gate's kind, the correction bias's use in
#: routing (the parameter exists either way), a normalisation floor; and num_nextn_predict_layers,
#: whose multi-token-prediction layer the -PT checkpoints do not store (ERNIE-4.5-21B-A3B-PT's hub
#: total, 21.8B, is the main model) and transformers does not build.
_ERNIE_NEUTRAL = ("moe_capacity", "moe_gate", "moe_use_aux_free", "moe_norm_min", "num_nextn_predict_layers")


def read_ernie_hunyuan(data: Mapping[str, Any], model_type: str, notes: list[str], *,
                       name: str | None = None) -> ModelSpec:
    """Read a config of one of :data:`MODEL_TYPES`."""
    family = "hunyuan_v1_moe" if model_type == "hunyuan" else model_type
    readers = {"ernie4_5_moe": _ernie_moe, "ernie4_5": _ernie_dense, "hunyuan_v1_moe": _hunyuan_moe,
               "hunyuan_v1_dense": _hunyuan_dense}
    fields = readers[family](_with_defaults(data, family, notes), model_type, notes)
    display = name or str(data.get("_name_or_path") or model_type)
    return ModelSpec(name=display, **fields, notes=tuple(notes))


def _with_defaults(data: Mapping[str, Any], family: str, notes: list[str]) -> Mapping[str, Any]:
    missing = {key: value for key, value in DEFAULTS.get(family, {}).items() if key not in data}
    if not missing:
        return data
    shown = ", ".join(f"{key}={value}" for key, value in missing.items())
    notes.append(f"config.json has no {', '.join(missing)}; used the defaults of transformers' {family} "
                 f"configuration class ({shown})")
    return with_values(data, missing)


# ---------------------------------------------------------------------------------------------- ERNIE 4.5
def _ernie_common(data: Mapping[str, Any], model_type: str, *, tied_default: bool = True) -> dict[str, Any]:
    fields = read_common(data, model_type)
    bias = read_bool(data, "use_bias", False)
    fields.update(qkv_bias=bias, o_bias=bias, mlp_bias=bias,
                  tie_word_embeddings=read_bool(data, "tie_word_embeddings", tied_default))
    return fields


def _ernie_dense(data: Mapping[str, Any], model_type: str, notes: list[str]) -> dict[str, Any]:
    if "head_dim" not in data:
        data = with_values(data, {"head_dim": 128})  # Ernie4_5Config's default, not hidden / heads
    return _ernie_common(data, model_type)


def _ernie_moe(data: Mapping[str, Any], model_type: str, notes: list[str]) -> dict[str, Any]:
    fields = _ernie_common(data, model_type)
    layers = fields["num_layers"]
    num_experts = read_int(data, "moe_num_experts", maximum=MAX_EXPERTS)
    width = read_int(data, "moe_intermediate_size", maximum=MAX_WIDTH)
    shared = read_int(data, "moe_num_shared_experts", maximum=MAX_EXPERTS, minimum=0)
    start = read_int(data, "moe_layer_start_index", maximum=layers - 1, minimum=0)
    end = data.get("moe_layer_end_index")
    end = layers - 1 if end == -1 else read_int(data, "moe_layer_end_index", maximum=layers - 1, minimum=0)
    interval = read_int(data, "moe_layer_interval", maximum=layers)
    acknowledge(data, *_ERNIE_NEUTRAL)
    mlps = ["moe" if (i + 1) % interval == 0 and start <= i <= end else "dense" for i in range(layers)]
    return {
        **fields,
        # Ernie4_5_MoeForCausalLM's lm_head takes use_bias too; its bias is not tied to the embedding.
        "lm_head_bias": fields["mlp_bias"],
        "moe": MoESpec(num_experts, read_int(data, "moe_k", maximum=num_experts), width,
                       num_shared_experts=1 if shared else 0, shared_intermediate_size=shared * width,
                       router_bias_per_expert=1, unbiased_experts=True, shared_expert_first=True,
                       fp32_router=True),
        "layers": build_layers(["full_attention"] * layers, mlps),
    }


# ---------------------------------------------------------------------------------------------- Hunyuan
def _hunyuan_attention(data: Mapping[str, Any], model_type: str) -> dict[str, Any]:
    """The fields Hunyuan's dense and MoE models share: per-head q/k norms, biases on all four projections."""
    if "head_dim" not in data and data.get("attention_head_dim") is not None:
        # Hunyuan-A13B's first config spelled head_dim attention_head_dim.
        data = with_values(data, {"head_dim": read_int(data, "attention_head_dim", maximum=MAX_HIDDEN)})
    fields = read_common(data, model_type)
    if read_bool(data, "use_cla", False):
        raise ConfigError("use_cla", True, "false (cross-layer attention, K and V shared by layer pairs, is not "
                          "modelled; transformers' Hunyuan does not build it)")
    if read_bool(data, "mlp_bias", False):
        raise ConfigError("mlp_bias", True, "false (transformers' Hunyuan MLPs have no biases)")
    if not read_bool(data, "use_qk_norm", True):
        raise ConfigError("use_qk_norm", False, "true (transformers' Hunyuan always normalises q and k per head)")
    acknowledge(data, "cla_share_factor")  # how many layers share K and V when use_cla is on; it is off
    return {**fields, "qk_norm": True}


def _hunyuan_dense(data: Mapping[str, Any], model_type: str, notes: list[str]) -> dict[str, Any]:
    return _hunyuan_attention(data, model_type)


def _hunyuan_moe(data: Mapping[str, Any], model_type: str, notes: list[str]) -> dict[str, Any]:
    fields = _hunyuan_attention(data, model_type)
    layers = fields["num_layers"]
    if read_int(data, "moe_layer_num_skipped", maximum=layers, default=0, minimum=0):
        raise ConfigError("moe_layer_num_skipped", data.get("moe_layer_num_skipped"),
                          "0 (transformers' Hunyuan makes every layer MoE; dense first layers are not modelled)")
    num_experts = _one_value(data, "num_experts", layers, maximum=MAX_EXPERTS)
    top_k = _one_value(data, "moe_topk", layers, maximum=num_experts)
    dense_width = fields["intermediate_size"]
    width = _one_value(data, "moe_intermediate_size", layers, maximum=MAX_WIDTH, default=dense_width)
    shared = _one_value(data, "num_shared_expert", layers, maximum=MAX_EXPERTS, default=1, minimum=0)
    if not read_bool(data, "use_mixed_mlp_moe", True):
        shared = 0
    if (width, shared) != (dense_width, 1):
        notes.append(f"experts {width} wide and a shared MLP {shared} x {dense_width} wide, as the checkpoint's "
                     "config and vLLM read them; transformers 5.23 would build experts and one shared MLP "
                     f"{dense_width} wide and could not load this checkpoint")
    return {
        **fields,
        # HunYuanMoEV1Gate keeps its weight in fp32 (on an fp32 copy of its input) and hands the experts fp32
        # routing weights; the shared
        # MLP runs before the experts.
        "moe": MoESpec(num_experts, top_k, width, num_shared_experts=1 if shared else 0,
                       shared_intermediate_size=shared * dense_width, fp32_routing_weights=True,
                       shared_expert_first=True, fp32_router=True),
        "layers": build_layers(["full_attention"] * layers, ["moe"] * layers),
    }


def _one_value(data: Mapping[str, Any], key: str, layers: int, *, maximum: int, default: int | None = None,
               minimum: int = 1) -> int:
    """``data[key]`` as one integer: a number, or a per-layer list holding one value ``layers`` times."""
    value = data.get(key, default)
    if isinstance(value, list):
        if len(value) != layers or len(set(value)) != 1:
            raise ConfigError(key, f"a list of {len(value)} items, {len(set(value))} distinct",
                              f"one value, or {layers} equal values (per-layer differences are not modelled)")
        return read_int({key: value[0]}, key, maximum=maximum, minimum=minimum)
    return read_int(data, key, maximum=maximum, default=default, minimum=minimum)
