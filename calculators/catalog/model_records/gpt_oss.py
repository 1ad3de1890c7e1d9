"""Catalog records: OpenAI's gpt-oss (20b, 120b), mixture-of-experts with attention sinks.

Both models alternate a 128-token sliding-window layer with a full-attention layer, add a
learned sink logit per head, and give the experts, the router and q/k/v/o biases. OpenAI
ships the expert weights in MXFP4 (4-bit values with one 8-bit scale per 32) and every
other tensor in bfloat16; the counts here are of parameters, whatever their storage.
"""

from __future__ import annotations

from calculators.catalog.model_record import (
    KVFIT_CONFIGS,
    KVFIT_COUNTS,
    READ_ON_2025_MODELS,
    ModelRecord,
    Published,
    config_source,
    hub_api_source,
    record,
)
from calculators.catalog.sources import Source

_SHARED = {
    "model_type": "gpt_oss", "hidden_size": 2880, "intermediate_size": 2880, "num_attention_heads": 64,
    "num_key_value_heads": 8, "head_dim": 64, "num_experts_per_tok": 4, "experts_per_token": 4,
    "vocab_size": 201088, "sliding_window": 128, "max_position_embeddings": 131072,
    "tie_word_embeddings": False, "quantization_config": {"quant_method": "mxfp4"},
}
#: OpenAI's model card: the rounded totals and checkpoint sizes the tests compare with.
MODEL_CARD = Source(
    title=("OpenAI, 'gpt-oss-120b & gpt-oss-20b Model Card' (arXiv:2508.10925), Table 1: total and "
           "active parameters (20.91B / 3.61B and 116.83B / 5.13B), rounded; the active count excludes "
           "the input embedding"),
    url="https://arxiv.org/abs/2508.10925",
    as_of=READ_ON_2025_MODELS,
    kind="spec",
)
_NOTES = (
    "Layer types alternate sliding_attention (128 tokens) and full_attention, so half the layers' KV cache "
    "stops growing at 128 tokens.",
    "Each attention layer holds one learned sink logit per query head (64), a softmax term with no value; "
    "transformers runs such attention eagerly (no SDPA path).",
    "Expert weights ship in MXFP4: 4.25 bits per parameter (a 4-bit value plus one 8-bit scale per 32); "
    "their biases, the router, attention and embeddings are bfloat16.",
    "OpenAI's model card publishes rounded totals (see the test); the exact published figure is the hub "
    "count a third-party registry recorded.",
)

RECORDS: tuple[ModelRecord, ...] = (
    record(
        "gpt-oss-20b", "gpt-oss-20b", "openai/gpt-oss-20b", "gpt-oss",
        {**_SHARED, "num_hidden_layers": 24, "num_local_experts": 32,
         "layer_types": ["sliding_attention", "full_attention"] * 12},
        config_source("openai/gpt-oss-20b", KVFIT_CONFIGS, as_of=READ_ON_2025_MODELS),
        Published(
            20914757184,
            hub_api_source("openai/gpt-oss-20b", "main", via=KVFIT_COUNTS, as_of=READ_ON_2025_MODELS)),
        notes=_NOTES + ("32 experts, 4 per token, no shared expert.",),
    ),
    record(
        "gpt-oss-120b", "gpt-oss-120b", "openai/gpt-oss-120b", "gpt-oss",
        {**_SHARED, "num_hidden_layers": 36, "num_local_experts": 128,
         "layer_types": ["sliding_attention", "full_attention"] * 18},
        config_source("openai/gpt-oss-120b", KVFIT_CONFIGS, as_of=READ_ON_2025_MODELS),
        Published(
            116829156672,
            hub_api_source("openai/gpt-oss-120b", "main", via=KVFIT_COUNTS, as_of=READ_ON_2025_MODELS)),
        notes=_NOTES + ("128 experts, 4 per token, no shared expert.",),
    ),
)
