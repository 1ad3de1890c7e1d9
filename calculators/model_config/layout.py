"""Keys that change a decoder's layer layout, and the record of which keys a reader looked at.

A reader that does not know a key such as ``hybrid_override_pattern`` or
``linear_num_value_heads`` would size the model as if every layer were attention + MLP
and give a confident, wrong number (a Nemotron-H 8B read that way has 17B parameters).
So every config is read through a :class:`TrackedConfig`, and once a family's reader is
done, any layout key the config sets that the reader never looked at is refused, naming
the key (:func:`unread_layout_keys`). A key with an empty value (``null``, ``false``,
``0``, ``[]``) sets nothing and is not refused.

>>> config = TrackedConfig({"hidden_size": 64, "mamba_num_heads": 8, "mlp_only_layers": []})
>>> config.get("hidden_size")
64
>>> unread_layout_keys(config)
['mamba_num_heads']
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

#: Keys (exact names) that add, remove or resize tensors of some layers.
LAYOUT_KEYS = frozenset({
    # which mixer each layer has
    "layer_types", "layers_block_type", "hybrid_override_pattern", "block_types", "attn_layer_indices",
    "attn_layer_period", "attn_layer_offset", "attn_type_list", "full_attn_idxs", "attention_chunk_size",
    "no_rope_layers", "nope_layer_interval", "attention_output_gate", "parallel_attn", "use_parallel_residual",
    "new_decoder_architecture", "cross_attention_layers", "num_kv_shared_layers", "hidden_size_per_layer_input",
    # experts and which layers have them
    "num_local_experts", "num_experts", "n_routed_experts", "n_shared_experts", "num_shared_experts",
    "first_k_dense_replace", "interleave_moe_layer_step", "mlp_only_layers", "decoder_sparse_step",
    "shared_expert_intermediate_size", "intermediate_size_mlp", "expert_layer_period", "expert_layer_offset",
    # latent attention, multi-token prediction
    "kv_lora_rank", "q_lora_rank", "num_nextn_predict_layers",
    # state-space and linear-attention mixers
    "conv_kernel", "d_state", "d_conv", "state_size", "expand", "time_step_rank", "n_groups",
    # towers beside the language model
    "vision_config", "audio_config", "vision_tower", "speech_config",
})
#: Key prefixes with the same meaning (Mamba, SSM, linear attention, MoE, MTP, indexers, ...).
LAYOUT_PREFIXES = ("mamba", "ssm_", "linear_", "lightning", "rwkv", "time_mix", "altup", "laurel", "moe_", "mtp_",
                   "index_", "indexer", "nextn", "vision_", "audio_")


def is_layout_key(key: str) -> bool:
    """True when ``key`` can change which tensors a decoder's layers have."""
    return key in LAYOUT_KEYS or key.startswith(LAYOUT_PREFIXES)


def sets_something(value: Any) -> bool:
    """False for ``null``, ``false``, ``0``, ``""``, ``[]`` and ``{}``: values that set no layout."""
    return not (value is None or value is False or value == 0 or value in ("", [], {}, ()))


class TrackedConfig(Mapping[str, Any]):
    """A read-only view of a config that records every key a reader asks for (``get``, ``[]``, ``in``)."""

    def __init__(self, data: Mapping[str, Any]) -> None:
        self._data = data
        self.asked: set[str] = set()

    def __getitem__(self, key: str) -> Any:
        self.asked.add(key)
        return self._data[key]

    def get(self, key: str, default: Any = None) -> Any:
        self.asked.add(key)
        return self._data.get(key, default)

    def __contains__(self, key: object) -> bool:
        if isinstance(key, str):
            self.asked.add(key)
        return key in self._data

    def __iter__(self) -> Iterator[str]:
        return iter(self._data)

    def __len__(self) -> int:
        return len(self._data)

    def merged(self, extra: Mapping[str, Any]) -> TrackedConfig:
        """A view of ``data`` with ``extra`` filled in, sharing this view's record of asked keys."""
        view = TrackedConfig({**self._data, **extra})
        view.asked = self.asked
        return view


def with_values(data: Mapping[str, Any], values: Mapping[str, Any]) -> Mapping[str, Any]:
    """``data`` with ``values`` set (a :class:`TrackedConfig` stays one, sharing its record of asked keys)."""
    return data.merged(values) if isinstance(data, TrackedConfig) else {**data, **values}


def acknowledge(data: Mapping[str, Any], *keys: str) -> None:
    """Mark layout-looking keys that a reader knows change no tensor shape (activations, time-step limits,
    chunk sizes of a kernel) as read, so they are not refused."""
    for key in keys:
        if key.endswith("*"):
            for present in [k for k in data if k.startswith(key[:-1])]:
                data.get(present)
        else:
            data.get(key)


def unread_layout_keys(config: TrackedConfig) -> list[str]:
    """Layout keys the config sets (a non-empty value) that no reader asked for, sorted."""
    return sorted(key for key in config if key not in config.asked and is_layout_key(key)
                  and sets_something(config._data[key]))
