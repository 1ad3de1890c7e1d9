"""What was read from a reader's own config.json, said back in one sentence above the answer."""

from __future__ import annotations

from calculators.model import ModelSpec


def _params(count: int) -> str:
    """A parameter count as K/M/B with three significant digits (``8.03B``, ``30.0M``)."""
    for scale, suffix in ((1e12, "T"), (1e9, "B"), (1e6, "M"), (1e3, "K")):
        if count >= scale:
            return f"{count / scale:.3g}{suffix}"
    return f"{count:,}"


def config_echo(spec: ModelSpec) -> str:
    """What was read from a pasted or uploaded config.json, as one sentence the reader can check.

    >>> from calculators.model_config import spec_from_config
    >>> spec = spec_from_config({"model_type": "llama", "hidden_size": 512, "num_hidden_layers": 4,
    ...     "num_attention_heads": 8, "num_key_value_heads": 2, "intermediate_size": 1024, "vocab_size": 1000,
    ...     "max_position_embeddings": 2048}, name="tiny")
    >>> # 2 x 1000 x 512 (embedding, head) + 4 x (655,360 attention + 1,572,864 MLP + 1,024 norms) + 512 = 9,941,504
    >>> config_echo(spec)
    'Read from your config.json: tiny, architecture llama (GQA), 9.94M parameters (all active), 4 layers, hidden size 512, 8 attention heads and 2 KV heads of 64 dimensions, context up to 2,048 tokens (max_position_embeddings).'
    """
    attention = "MLA" if spec.mla else ("MHA" if spec.num_kv_heads == spec.num_attention_heads else "GQA")
    moe = (f", mixture of experts: {spec.moe.num_experts} experts, {spec.moe.experts_per_token} per token"
           if spec.moe else "")
    active = ("all active" if spec.active_parameters == spec.parameters
              else f"{_params(spec.active_parameters)} active per token")
    context = (f"context up to {spec.max_position_embeddings:,} tokens (max_position_embeddings)"
               if spec.max_position_embeddings else "context length not stated (no max_position_embeddings)")
    window = f", sliding window of {spec.sliding_window:,} tokens" if spec.sliding_window else ""
    return (f"Read from your config.json: {spec.name}, architecture {spec.model_type} ({attention}{moe}), "
            f"{_params(spec.parameters)} parameters ({active}), {spec.num_layers:,} layers, hidden size "
            f"{spec.hidden_size:,}, {spec.num_attention_heads:,} attention heads and {spec.num_kv_heads:,} KV heads "
            f"of {spec.head_dim:,} dimensions{window}, {context}.")
