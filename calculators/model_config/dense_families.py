"""Readers of the dense attention families of 2025-26: SmolLM3, OLMo 2 and 3, Cohere (Command R, R7B, A),
EXAONE 4.0 and Seed-OSS.

They are all attention + gated-MLP decoders, but each places its norms, biases, rotary
embeddings and windows its own way, as transformers 5.23 builds them:

* **SmolLM3** (``smollm3``): Llama's layer, tied embeddings by default; ``no_rope_layers`` (1 =
  RoPE, 0 = NoPE, one per layer) or, without it, a NoPE layer every ``no_rope_layer_interval``-th
  layer (default 4); with ``use_sliding_window`` the NoPE layers slide.
* **OLMo 2** (``olmo2``) and **OLMo 3** (``olmo3``): post-norm (an RMSNorm on the attention output
  and one on the MLP output, none before them), q/k RMSNorms over the whole q and k width
  (``num_attention_heads x head_dim`` and ``num_key_value_heads x head_dim`` weights), an MLP
  without biases whatever ``mlp_bias`` says; OLMo 3 windows three layers of four (``layer_types``,
  4096 tokens by default).
* **Cohere** (``cohere``: Command R / R+) and **Cohere 2** (``cohere2``: Command R7B, Command A):
  one LayerNorm with a weight and no bias per layer, feeding attention and MLP in parallel; tied
  embeddings and a ``logit_scale`` on the logits; Cohere's optional q/k LayerNorms
  (``use_qk_norm``) weigh every head separately; Cohere 2 slides three layers of four
  (``layer_types`` or ``sliding_window_pattern``) and its full-attention layers are NoPE; its
  head_dim is always ``hidden_size / num_attention_heads``.
* **EXAONE 4.0** (``exaone4``): post-norm as OLMo 2 but q/k RMSNorms per head; no biases anywhere;
  local:global 3:1 (``layer_types``, or ``sliding_window_pattern`` as an integer or a string
  such as ``"LLLG"``), NoPE on the global layers of a windowed model; no window (1.2B) means
  every layer full attention with RoPE.
* **Seed-OSS** (``seed_oss``): Llama's layer with q/k/v biases (``attention_bias``, default
  true), an o_proj bias only with ``attention_out_bias`` (default false), head_dim 128 by default.

>>> spec = read_dense({"model_type": "olmo2", "hidden_size": 64, "num_hidden_layers": 2,
...     "num_attention_heads": 4, "intermediate_size": 128, "vocab_size": 100}, "olmo2", [])
>>> spec.block_layout, spec._attention_norm_params  # q_norm 64 + k_norm 64 weights
('post_norm', 128)

References:
    transformers 5.23 ``models/{smollm3,olmo2,olmo3,cohere,cohere2,exaone4,seed_oss}/`` (the
    configuration classes' defaults and the modeling files' tensors).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from calculators.errors import ConfigError
from calculators.model import ModelSpec
from calculators.model_config.common import build_layers, listed_attention_kinds, read_common
from calculators.model_config.keys import MAX_HEADS, MAX_HIDDEN, MAX_LAYERS, MAX_TOKENS, read_bool, read_int, read_int_list, \
    read_opt_float, read_opt_int
from calculators.model_config.layout import with_values

#: The families this module reads (``config.model_type``).
MODEL_TYPES = ("smollm3", "olmo2", "olmo3", "cohere", "cohere2", "exaone4", "seed_oss")

#: Families of this subject that are refused by name, with the reason (``config.model_type`` -> why).
REFUSED: dict[str, str] = dict.fromkeys(("gemma3n", "gemma3n_text"), (
    "Gemma 3n is not modelled yet: each layer carries AltUp (four parallel copies of the hidden state, "
    "altup_num_inputs), a LAuReL low-rank residual (laurel_rank) and a per-layer embedding input "
    "(hidden_size_per_layer_input, from a vocab_size_per_layer_input x layers table of over 2 billion entries), "
    "its last num_kv_shared_layers layers reuse earlier layers' KV cache, and its MLPs apply activation "
    "sparsity: a Llama-style reading would miscount its parameters, cache and activations"))

#: Configuration-class defaults that differ from Llama's (transformers 5.23).
_TIED_BY_DEFAULT = ("smollm3", "cohere", "cohere2")
_COHERE_LOGIT_SCALE = 0.0625  # CohereConfig / Cohere2Config.logit_scale
_OLMO3_WINDOW = 4096  # Olmo3Config.sliding_window
_COHERE2_WINDOW, _COHERE2_PATTERN = 4096, 4  # Cohere2Config: sliding_window, sliding_window_pattern
_EXAONE4_WINDOW, _EXAONE4_PATTERN, _EXAONE4_KV_HEADS = 4096, 4, 32  # Exaone4Config defaults
_SEED_OSS_HEAD_DIM = 128  # SeedOssConfig.head_dim


def read_dense(data: Mapping[str, Any], model_type: str, notes: list[str], *, name: str | None = None) -> ModelSpec:
    """Read a config of one of :data:`MODEL_TYPES` into a :class:`~calculators.model.ModelSpec`."""
    readers = {"smollm3": _smollm3, "olmo2": _olmo, "olmo3": _olmo, "cohere": _cohere, "cohere2": _cohere,
               "exaone4": _exaone4, "seed_oss": _seed_oss}
    fields = readers[model_type](data, model_type, notes)
    return ModelSpec(name=name or str(data.get("_name_or_path") or model_type), **fields, notes=tuple(notes))


def _smollm3(data: Mapping[str, Any], model_type: str, notes: list[str]) -> dict[str, Any]:
    fields = _common(data, model_type)
    layers = fields["num_layers"]
    # SmolLM3Config: no_rope_layers[i] = 1 applies RoPE; without the list every interval-th layer is NoPE.
    rope = [bool(flag) for flag in read_int_list(data, "no_rope_layers", maximum=1)]
    if not rope:
        interval = read_int(data, "no_rope_layer_interval", maximum=MAX_LAYERS, default=4)
        rope = [(i + 1) % interval != 0 for i in range(layers)]
    elif len(rope) < layers:
        raise ConfigError("no_rope_layers", f"a list of {len(rope)} flags", f"one 0/1 flag per layer ({layers})")
    window = read_opt_int(data, "sliding_window", maximum=MAX_TOKENS) \
        if read_bool(data, "use_sliding_window", False) else None
    kinds = listed_attention_kinds(data, layers)
    if kinds is None:
        kinds = ["sliding_attention" if window and not rope[i] else "full_attention" for i in range(layers)]
    window, kinds = _windowed(window, kinds)
    return {**fields, "sliding_window": window, "layers": build_layers(kinds, ["dense"] * layers,
                                                                         rope=rope[:layers])}


def _olmo(data: Mapping[str, Any], model_type: str, notes: list[str]) -> dict[str, Any]:
    fields = _common(data, model_type)
    layers = fields["num_layers"]
    window: int | None = None
    kinds = ["full_attention"] * layers
    if model_type == "olmo3":
        # Olmo3Config: three sliding layers of four unless layer_types says otherwise.
        window = read_opt_int(data, "sliding_window", maximum=MAX_TOKENS) if "sliding_window" in data \
            else _OLMO3_WINDOW
        kinds = listed_attention_kinds(data, layers) or [
            "full_attention" if (i + 1) % 4 == 0 else "sliding_attention" for i in range(layers)]
        window, kinds = _windowed(window, kinds)
    return {**fields, "mlp_bias": False, "qk_norm": True, "qk_norm_scope": "width", "norm_weight_fp32": True,
            "block_layout": "post_norm",
            "sliding_window": window, "layers": build_layers(kinds, ["dense"] * layers)}


def _cohere(data: Mapping[str, Any], model_type: str, notes: list[str]) -> dict[str, Any]:
    if model_type == "cohere2":
        # Cohere2Config.__post_init__ sets head_dim = hidden_size // num_attention_heads, whatever config.json says.
        given = data.get("head_dim")
        heads = read_int(data, "num_attention_heads", maximum=MAX_HEADS)
        width = read_int(data, "hidden_size", maximum=MAX_HIDDEN)
        if given is not None and given != width // heads:
            notes.append(f"config.json sets head_dim {given}; transformers' Cohere2 uses hidden_size / "
                         f"num_attention_heads = {width // heads}, as this reading does")
        data = with_values(data, {"head_dim": width // heads})
    fields = _common(data, model_type)
    layers = fields["num_layers"]
    qk_norm = read_bool(data, "use_qk_norm", False) if model_type == "cohere" else False
    window: int | None = None
    kinds = ["full_attention"] * layers
    rope = [True] * layers
    if model_type == "cohere2":
        window = read_opt_int(data, "sliding_window", maximum=MAX_TOKENS) if "sliding_window" in data \
            else _COHERE2_WINDOW
        kinds = listed_attention_kinds(data, layers) or _pattern_kinds(data, layers, _COHERE2_PATTERN)
        # Cohere2Attention applies RoPE only where the layer slides (a window is set): full layers are NoPE.
        rope = [kind == "sliding_attention" and window is not None for kind in kinds]
        window, kinds = _windowed(window, kinds)
    return {**fields, "mlp_bias": False, "norms_per_layer": 1, "block_layout": "parallel", "qk_norm": qk_norm,
            "qk_norm_scope": "head_weights", "norm_weight_fp32": True, "norm_kind": "layer",
            "sliding_window": window,
            "logit_scale": read_opt_float(data, "logit_scale", _COHERE_LOGIT_SCALE),
            "layers": build_layers(kinds, ["dense"] * layers, rope=rope)}


def _exaone4(data: Mapping[str, Any], model_type: str, notes: list[str]) -> dict[str, Any]:
    if "num_key_value_heads" not in data:  # Exaone4Config's default is 32, not num_attention_heads
        data = with_values(data, {"num_key_value_heads": _EXAONE4_KV_HEADS})
    fields = _common(data, model_type)
    layers = fields["num_layers"]
    window = read_opt_int(data, "sliding_window", maximum=MAX_TOKENS) if "sliding_window" in data \
        else _EXAONE4_WINDOW
    kinds = listed_attention_kinds(data, layers)
    if kinds is None:
        kinds = _pattern_kinds(data, layers, _EXAONE4_PATTERN) if window is not None else ["full_attention"] * layers
    # Exaone4Attention: RoPE where sliding_window is None (every layer) or where the layer slides.
    rope = [window is None or kind == "sliding_attention" for kind in kinds]
    window, kinds = _windowed(window, kinds)
    # Exaone4Attention's projections have no biases, whatever attention_bias says.
    return {**fields, "qkv_bias": False, "o_bias": False, "mlp_bias": False, "qk_norm": True,
            "block_layout": "post_norm", "sliding_window": window,
            "layers": build_layers(kinds, ["dense"] * layers, rope=rope)}


def _seed_oss(data: Mapping[str, Any], model_type: str, notes: list[str]) -> dict[str, Any]:
    if data.get("head_dim") is None:  # SeedOssConfig's default head_dim is 128, not hidden / heads
        data = with_values(data, {"head_dim": _SEED_OSS_HEAD_DIM})
    fields = _common(data, model_type)
    layers = fields["num_layers"]
    if fields["attention_dropout"]:
        notes.append(f"attention_dropout {fields['attention_dropout']:g} in training: CUDA's flash and memory-"
                     "efficient SDPA kernels apply it without keeping the scores, as estimated; PyTorch's CPU SDPA "
                     "has no fused kernel with dropout and materialises them (not modelled)")
    return {**fields, "qkv_bias": read_bool(data, "attention_bias", True),
            "o_bias": read_bool(data, "attention_out_bias", False),
            "layers": build_layers(["full_attention"] * layers, ["dense"] * layers)}


def _common(data: Mapping[str, Any], model_type: str) -> dict[str, Any]:
    """:func:`read_common` with the family's tied-embedding default and its training dropouts."""
    fields = read_common(data, model_type)
    fields["tie_word_embeddings"] = read_bool(data, "tie_word_embeddings", model_type in _TIED_BY_DEFAULT)
    default = 0.1 if model_type == "seed_oss" else 0.0  # SeedOssConfig drops out 10 % by default
    fields["attention_dropout"] = _probability(data, "attention_dropout", default)
    if model_type == "seed_oss":
        fields["residual_dropout"] = _probability(data, "residual_dropout", default)
    return fields


def _probability(data: Mapping[str, Any], key: str, default: float) -> float:
    """``data[key]`` as a dropout probability in [0, 1) (``default`` when absent or null)."""
    value = data.get(key)
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value < 1:
        raise ConfigError(key, value, "a probability from 0 to below 1")
    return float(value)


def _pattern_kinds(data: Mapping[str, Any], layers: int, default: int) -> list[str]:
    """Kinds from ``sliding_window_pattern``: an integer ``p`` (layer ``i`` is global when ``(i + 1) % p == 0``,
    the configuration classes' rule) or a string of ``L`` (local) and ``G`` (global) repeated over the layers."""
    pattern = data.get("sliding_window_pattern")
    if pattern is None:
        return _pattern_kinds(with_values(data, {"sliding_window_pattern": default}), layers, default)
    if isinstance(pattern, str):
        if not pattern or set(pattern) - {"L", "G"} or len(pattern) > MAX_LAYERS:
            raise ConfigError("sliding_window_pattern", pattern, "an integer, or a string of L (local) and G (global)")
        return ["sliding_attention" if pattern[i % len(pattern)] == "L" else "full_attention" for i in range(layers)]
    period = read_int(data, "sliding_window_pattern", maximum=MAX_LAYERS, default=default)
    return ["full_attention" if (i + 1) % period == 0 else "sliding_attention" for i in range(layers)]


def _windowed(window: int | None, kinds: list[str]) -> tuple[int | None, list[str]]:
    """The window and kinds as the cache sees them: no window, or no sliding layer, means all full attention."""
    if window is None or "sliding_attention" not in kinds:
        return None, ["full_attention"] * len(kinds)
    return window, kinds
