"""Readers of DeepSeek-V3's descendants: DeepSeek-V3.2 (sparse attention with a lightning indexer) and Kimi K2.

* **DeepSeek-V3.2** (``deepseek_v32``; V3.2-Exp, V3.2): DeepSeek-V3's layers (multi-head latent
  attention, dense first ``first_k_dense_replace`` layers, 256 routed + 1 shared expert, one
  multi-token-prediction layer stored) plus, in every layer, a lightning indexer
  (:class:`~calculators.model_layers.IndexerSpec`: ``index_n_heads`` heads of
  ``index_head_dim``) that picks the ``index_topk`` cached tokens each query attends to and
  caches one ``index_head_dim`` key per token beside the MLA latent.
* **Kimi K2** (``kimi_k2``; Kimi K2, K2 Thinking, and the language model of Kimi K2.5): DeepSeek-V3's
  architecture (its config names ``DeepseekV3ForCausalLM``, and transformers reads ``kimi_k2`` as
  ``deepseek_v3``) with 384 experts, 64 heads and one dense layer.

Everything DeepSeek-V3 has is read by :func:`calculators.model_config.classic.read_classic`; this
module adds the indexer and the per-layer lists of transformers' ``DeepseekV32Config``
(``layer_types`` of ``indexed_attention``, ``mlp_layer_types`` of ``dense`` / ``sparse``).

>>> spec = read_deepseek({"model_type": "deepseek_v32", "hidden_size": 7168, "num_hidden_layers": 61,
...     "num_attention_heads": 128, "num_key_value_heads": 128, "intermediate_size": 18432,
...     "vocab_size": 129280, "index_n_heads": 64, "index_head_dim": 128, "index_topk": 2048}, "deepseek_v32", [])
>>> spec.indexer.head_dim, spec.parameters - 61 * 13_959_424  # DeepSeek-V3's 671B main model plus the indexers
(128, 671026419200)
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from calculators.errors import ConfigError
from calculators.model import ModelSpec, MoESpec
from calculators.model_config import classic
from calculators.model_config.common import build_layers
from calculators.model_config.keys import MAX_HEADS, MAX_HIDDEN, MAX_LAYERS, MAX_TOKENS, read_int, read_str_list
from calculators.model_config.layout import with_values
from calculators.model_layers import IndexerSpec

#: The families this module reads (``config.model_type``).
MODEL_TYPES = ("deepseek_v32", "kimi_k2")

#: DeepseekV32Config's indexer defaults (transformers 5.23; the values of DeepSeek-V3.2-Exp).
INDEXER_DEFAULTS = {"index_n_heads": 64, "index_head_dim": 128, "index_topk": 2048}


def read_deepseek(data: Mapping[str, Any], model_type: str, notes: list[str], *,
                  name: str | None = None) -> ModelSpec:
    """Read a config of one of :data:`MODEL_TYPES` (DeepSeek-V3's layout, plus V3.2's indexer)."""
    display = name or str(data.get("_name_or_path") or model_type)
    if model_type == "kimi_k2":
        spec = classic.read_classic(data, "deepseek_v3", notes, name=display)
        return replace(spec, model_type=model_type, moe=_fp32_routing(spec))
    layers_listed = data.get("layer_types")
    if layers_listed:
        read_str_list(data, "layer_types", allowed=("indexed_attention",),
                      length=read_int(data, "num_hidden_layers", maximum=MAX_LAYERS))
        data = with_values(data, {"layer_types": None})  # every layer is MLA + indexer: nothing more to read
    spec = classic.read_classic(data, "deepseek_v3", notes, name=display)
    assert spec.mla is not None
    if spec.mla.q_lora_rank is None:
        raise ConfigError("q_lora_rank", None, "a rank (the indexer's queries are projected from the query latent)")
    missing = {key: value for key, value in INDEXER_DEFAULTS.items() if key not in data}
    if missing:
        notes.append(f"config.json has no {', '.join(missing)}; used DeepseekV32Config's defaults "
                     f"({', '.join(f'{key}={value}' for key, value in missing.items())})")
        data = with_values(data, missing)
    indexer = IndexerSpec(
        num_heads=read_int(data, "index_n_heads", maximum=MAX_HEADS),
        head_dim=read_int(data, "index_head_dim", maximum=MAX_HIDDEN),
        # How many cached tokens each query keeps: it changes the attention's work, not a tensor or the cache.
        topk=read_int(data, "index_topk", maximum=MAX_TOKENS),
    )
    layers = spec.layers
    if data.get("mlp_layer_types"):
        # DeepseekV32Config.mlp_layer_types, when given, decides which layers are MoE ("sparse").
        kinds = read_str_list(data, "mlp_layer_types", allowed=("dense", "sparse"), length=spec.num_layers)
        layers = build_layers([layer.mixers for layer in spec.layers],
                              ["moe" if kind == "sparse" else "dense" for kind in kinds])
    return replace(spec, model_type=model_type, indexer=indexer, layers=layers, moe=_fp32_routing(spec))


def _fp32_routing(spec: ModelSpec) -> MoESpec | None:
    """DeepSeek's router (DeepseekV3TopkRouter and its copies) runs on an fp32 copy of its input, computes
    sigmoid scores in fp32 and hands the experts fp32 weights."""
    return replace(spec.moe, fp32_routing_weights=True, fp32_router=True) if spec.moe is not None else None
