"""Read a Hugging Face ``config.json`` into a :class:`~calculators.model.ModelSpec`, family by family.

Each ``model_type`` has a reader that knows its layout (:data:`FAMILIES`): the attention +
MLP families in :mod:`calculators.model_config.classic`, the hybrid state-space and
linear-attention families in :mod:`calculators.model_config.hybrid`. Every key read is
checked (:mod:`calculators.model_config.keys`) and an error names it. Nothing is guessed
silently:

* a config that sets a layout key its reader does not model (a Mamba, linear-attention,
  expert or per-layer key, :mod:`calculators.model_config.layout`) is refused, naming the
  keys;
* a ``model_type`` this package does not know is read as Llama-style only when it sets no
  such key, and the spec then carries a warning (``ModelSpec.warnings``) that every face
  shows first;
* encoder models (BERT-class) and encoder-decoders are refused by name.

>>> spec = spec_from_config({"model_type": "qwen2", "hidden_size": 896, "num_hidden_layers": 24,
...     "num_attention_heads": 14, "num_key_value_heads": 2, "intermediate_size": 4864,
...     "vocab_size": 151936, "tie_word_embeddings": True})
>>> spec.parameters  # Qwen2.5-0.5B's published count
494032768
>>> guess = spec_from_config({"model_type": "my_llama", "hidden_size": 64, "num_hidden_layers": 1,
...     "num_attention_heads": 4, "intermediate_size": 128, "vocab_size": 10})
>>> guess.warnings[0].split(":")[0]
"model_type 'my_llama' is not one this guide knows"
>>> spec_from_config({"model_type": "my_hybrid", "hidden_size": 64, "num_hidden_layers": 1,
...     "num_attention_heads": 4, "intermediate_size": 128, "vocab_size": 10, "mamba_d_state": 16})
Traceback (most recent call last):
...
calculators.errors.ConfigError: config.mamba_d_state: got 16; expected nothing: config.json sets mamba_d_state, ...
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

from calculators.config_input import load_config_json
from calculators.encoder import decoder_refusal
from calculators.errors import ConfigError
from calculators.model import ModelSpec
from calculators.quantization import checkpoint_quantization
from calculators.model_config import (
    classic,
    deepseek,
    dense_families,
    ernie_hunyuan,
    hybrid,
    moe_families,
    ssm_families,
)
from calculators.model_config.classic import MOE_DEFAULTS
from calculators.model_config.layout import TrackedConfig, unread_layout_keys
from calculators.model_config.vision_language import (
    TEXT_ALIASES,
    TEXT_MODEL_TYPES,
    read_mllama_text,
    split_vision_language,
)

__all__ = ["ENCODER_MODEL_TYPES", "FAMILIES", "KNOWN_MODEL_TYPES", "MOE_DEFAULTS", "REFUSED_MODEL_TYPES",
           "spec_from_config"]

#: ``model_type`` -> the reader that knows its layout exactly.
FAMILIES: dict[str, Callable[..., ModelSpec]] = {
    **{model_type: classic.read_classic for model_type in classic.MODEL_TYPES},
    **{model_type: hybrid.read_hybrid for model_type in hybrid.MODEL_TYPES},
    **{model_type: ssm_families.read_ssm for model_type in ssm_families.MODEL_TYPES},
    "mllama_text_model": read_mllama_text,
    **{model_type: moe_families.read_moe_family for model_type in moe_families.MODEL_TYPES},
    **{model_type: deepseek.read_deepseek for model_type in deepseek.MODEL_TYPES},
    **{model_type: ernie_hunyuan.read_ernie_hunyuan for model_type in ernie_hunyuan.MODEL_TYPES},
    **{model_type: dense_families.read_dense for model_type in dense_families.MODEL_TYPES},
}
#: Architectures whose tensor layout this package knows exactly (``config.model_type``).
KNOWN_MODEL_TYPES: tuple[str, ...] = tuple(FAMILIES)

#: Encoder-only and encoder-decoder families (``config.model_type``): refused, not guessed. Their
#: layers differ from a decoder's in every term the memory model counts (a two-matrix MLP with
#: biases, LayerNorm, learned position and token-type embeddings, bidirectional attention, a
#: masked-LM or classification head), so a Llama-style reading would miscount them.
ENCODER_MODEL_TYPES = (
    "bert", "roberta", "xlm-roberta", "distilbert", "albert", "electra", "deberta", "deberta-v2", "modernbert",
    "mpnet", "t5", "mt5", "bart",
)
#: Decoder families refused by name until their layout is modelled (``config.model_type`` -> why).
REFUSED_MODEL_TYPES: dict[str, str] = {**dense_families.REFUSED}
_LLAMA_KEYS = ("hidden_size", "num_hidden_layers", "num_attention_heads", "intermediate_size", "vocab_size")
#: Keys beside the language model's that name towers this package does not size yet.
_TOWER_KEYS = ("vision_config", "audio_config", "speech_config", "vision_tower")


def spec_from_config(config: Mapping[str, Any] | str | bytes | Path, *, name: str | None = None) -> ModelSpec:
    """Parse a ``config.json`` (a dict, JSON text, its bytes or a file path) into a :class:`ModelSpec`.

    The input limits (1 MiB, UTF-8, nesting, integer length) are those of
    :mod:`calculators.config_input`.

    Raises:
        ConfigError: a key is missing or out of range, the ``model_type`` is an encoder or
            unknown without Llama's keys, or the config sets a layout key its reader does not
            model; the message names the key.
    """
    data = load_config_json(config)
    if data.get("model_type") in TEXT_MODEL_TYPES and data.get("vision_config"):
        text, tower, notes = split_vision_language(data)
        spec = _spec_from_dict(text, name=name or _name(data), warnings=[])
        quantization = spec.quantization or checkpoint_quantization(data.get("quantization_config"),
                                                                    model_type=str(data["model_type"]))
        return replace(spec, vision=tower, notes=spec.notes + tuple(notes), quantization=quantization)
    data, warnings = _language_model(data)
    return _spec_from_dict(data, name=name, warnings=warnings)


def _name(data: Mapping[str, Any]) -> str | None:
    name = data.get("_name_or_path")
    return str(name) if name else None


def _language_model(data: dict[str, Any]) -> tuple[dict[str, Any], list[str]]:
    """The language model's config (multimodal configs nest it under ``text_config``) and what it leaves out."""
    warnings = []
    text_config = data.get("text_config")
    if isinstance(text_config, dict) and "hidden_size" not in data:
        towers = [key for key in _TOWER_KEYS if data.get(key)]
        if towers:
            warnings.append(f"config.json holds a {data.get('model_type', 'multimodal')} model: only its language "
                            f"model (text_config) is sized; the {' and '.join(towers)} tower's weights and "
                            "activations are not counted")
        merged = {**text_config}
        merged.setdefault("model_type", text_config.get("model_type", data.get("model_type")))
        data = merged
    return data, warnings


def _spec_from_dict(data: Mapping[str, Any], *, name: str | None, warnings: list[str]) -> ModelSpec:
    notes: list[str] = []
    model_type = data.get("model_type")
    if not isinstance(model_type, str) or not model_type:
        raise ConfigError("model_type", model_type, f"a string such as one of: {', '.join(KNOWN_MODEL_TYPES)}")
    if model_type in ENCODER_MODEL_TYPES:
        raise ConfigError("model_type", model_type, decoder_refusal(model_type))
    if model_type in REFUSED_MODEL_TYPES:
        raise ConfigError("model_type", model_type, f"a family this guide models: {REFUSED_MODEL_TYPES[model_type]}")
    if model_type in TEXT_ALIASES:  # a vision-language model's language model, read by its family's rules
        data = {**data, "model_type": TEXT_ALIASES[model_type]}
        model_type = TEXT_ALIASES[model_type]
    tracked = TrackedConfig(data)
    reader = FAMILIES.get(model_type)
    if reader is None:
        missing = [k for k in _LLAMA_KEYS if k not in data]
        if missing:
            raise ConfigError("model_type", model_type,
                              f"one of: {', '.join(KNOWN_MODEL_TYPES)}, or a Llama-style config "
                              f"(missing {', '.join(missing)})")
        reader = classic.read_classic
    spec = reader(tracked, model_type, notes, name=name)
    unread = unread_layout_keys(tracked)
    if unread:
        what = "this guide's reader of" if model_type in FAMILIES else "a Llama-style reading of"
        raise ConfigError(unread[0], data.get(unread[0]),
                          f"nothing: config.json sets {', '.join(unread)}, which {what} model_type "
                          f"{model_type!r} does not model (its layers would be miscounted); known families: "
                          f"{', '.join(KNOWN_MODEL_TYPES)}")
    if model_type not in FAMILIES:
        warnings.insert(0, f"model_type {model_type!r} is not one this guide knows: read as Llama-style (gated "
                           "MLP, RMSNorm, no biases unless the config says so); check the parameter count against "
                           "the model card")
    # How the checkpoint stores its weights (read here, not by the families: every family spells it alike).
    quantization = checkpoint_quantization(tracked.get("quantization_config"), model_type=model_type)
    return replace(spec, warnings=tuple(warnings), quantization=quantization)
