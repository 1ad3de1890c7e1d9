"""Catalog records: sizes and fine-tunes people run in families the reader already knows exactly.

Gemma 3 270M, Phi-4-mini, Magistral Small, and the instruction-tuned Llama 3.2 1B and 3B.
"""

from __future__ import annotations

from calculators.catalog.model_record import (
    KVFIT_CONFIGS,
    KVFIT_COUNTS,
    READ_ON_2026_MODELS,
    ModelRecord,
    Published,
    config_source,
    hub_api_source,
    keras_source,
    record,
)
from calculators.catalog.model_records.mistral import _MISTRAL_SMALL
from calculators.catalog.sources import Source

_D = READ_ON_2026_MODELS

_LLAMA32 = {
    "model_type": "llama", "vocab_size": 128256, "attention_bias": False, "mlp_bias": False,
    "tie_word_embeddings": True, "rms_norm_eps": 1e-05, "rope_theta": 500000.0, "max_position_embeddings": 131072,
    "rope_scaling": {"factor": 32.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0,
                     "original_max_position_embeddings": 8192, "rope_type": "llama3"},
    "torch_dtype": "bfloat16",
}

RECORDS: tuple[ModelRecord, ...] = (
    record(
        "gemma-3-270m", "Gemma 3 270M", "google/gemma-3-270m", "gemma",
        {"model_type": "gemma3_text", "hidden_size": 640, "num_hidden_layers": 18, "num_attention_heads": 4,
         "num_key_value_heads": 1, "head_dim": 256, "intermediate_size": 2048, "vocab_size": 262144,
         "sliding_window": 512, "sliding_window_pattern": 6, "max_position_embeddings": 32768,
         "query_pre_attn_scalar": 256, "attention_bias": False, "attn_logit_softcapping": None,
         "final_logit_softcapping": None, "hidden_activation": "gelu_pytorch_tanh", "rms_norm_eps": 1e-06,
         "tie_word_embeddings": True},
        config_source("google/gemma-3-270m", "a verbatim config dict (_sliding_window_pattern 6, an 18-entry "
                      "layer_types list) in the tests of a public GitHub repository (circuit-tracer)", as_of=_D),
        Published(
            268098176,
            keras_source("gemma3_270m", "gemma3", sibling_of="google/gemma-3-270m", as_of=_D)),
        notes=("Text-only Gemma 3: five sliding-window (512) layers to one global, q/k RMSNorms, tied head.",
               "Of its 268M parameters, 170M are the 262,144 x 640 embedding (Google: '170M embedding "
               "parameters, 100M transformer blocks'), which the tests check."),
    ),
    record(
        "phi-4-mini", "Phi-4-mini Instruct", "microsoft/Phi-4-mini-instruct", "phi",
        {"model_type": "phi3", "hidden_size": 3072, "num_hidden_layers": 32, "num_attention_heads": 24,
         "num_key_value_heads": 8, "intermediate_size": 8192, "vocab_size": 200064,
         "max_position_embeddings": 131072, "sliding_window": 262144, "tie_word_embeddings": True},
        config_source("microsoft/Phi-4-mini-instruct", KVFIT_CONFIGS, as_of=_D),
        Published(
            3836021760,
            hub_api_source("microsoft/Phi-4-mini-instruct", "main", via=KVFIT_COUNTS, as_of=_D)),
        notes=("Phi-3 layout (fused qkv_proj and gate_up_proj, no biases) with grouped-query attention "
               "(24 query heads, 8 KV heads) and a tied 200,064-token embedding.",
               "Its config.json also sets partial_rotary_factor (RoPE on part of each head), which changes no "
               "tensor shape; the trimmed copy read here does not carry it.",
               "microsoft/Phi-4-mini-reasoning has the same hub total (3,836,021,760)."),
    ),
    record(
        "magistral-small-2506", "Magistral Small 2506", "mistralai/Magistral-Small-2506", "mistral",
        {k: v for k, v in _MISTRAL_SMALL.items() if k != "max_position_embeddings"},
        config_source("mistralai/Magistral-Small-2506",
                      "Mistral Small 3.1's text_config (Magistral Small is its reasoning fine-tune; the catalog's "
                      "mistral-small-3.1-24b record)",
                      as_of=_D),
        Published(
            23572403200,
            keras_source("magistral_small_2506_en", "mistral", sibling_of="mistralai/Magistral-Small-2506", as_of=_D)),
        notes=("A text-only MistralForCausalLM checkpoint: the Mistral Small 3.1 language model without its "
               "Pixtral vision encoder, 23,572,403,200 = the 24,011,361,280 multimodal total - 438,958,080.",
               "KerasHub's magistral_small_2507_en preset gives the same count.",
               "Magistral's max_position_embeddings was not read, so it is left out (unknown); it changes no "
               "tensor shape."),
    ),
    record(
        "llama-3.2-1b-instruct", "Llama 3.2 1B Instruct", "meta-llama/Llama-3.2-1B-Instruct", "llama",
        {**_LLAMA32, "hidden_size": 2048, "num_hidden_layers": 16, "num_attention_heads": 32,
         "num_key_value_heads": 8, "head_dim": 64, "intermediate_size": 8192},
        config_source("meta-llama/Llama-3.2-1B-Instruct", "the shape keys of meta-llama/Llama-3.2-1B (the "
                      "catalog's llama-3.2-1b record; the instruction tune keeps every tensor shape)", as_of=_D),
        Published(
            1235814400,
            Source(
                title=("Nikolić, Baluta & Saxena, 'Model Provenance Testing for Large Language Models' "
                       "(arXiv:2502.00706v2, NeurIPS 2025), Appendix Table 4 '# params', row "
                       "meta-llama/Llama-3.2-1B-Instruct"),
                url="https://arxiv.org/abs/2502.00706",
                as_of=_D,
                kind="spec",
            )),
        notes=("The instruction-tuned 1B: tied head, 8 KV heads of 64.",),
    ),
    record(
        "llama-3.2-3b-instruct", "Llama 3.2 3B Instruct", "meta-llama/Llama-3.2-3B-Instruct", "llama",
        {**_LLAMA32, "hidden_size": 3072, "num_hidden_layers": 28, "num_attention_heads": 24,
         "num_key_value_heads": 8, "head_dim": 128, "intermediate_size": 8192},
        config_source("meta-llama/Llama-3.2-3B-Instruct", KVFIT_CONFIGS + ", read from the unsloth mirror",
                      as_of=_D),
        Published(
            3212749824,
            hub_api_source("unsloth/Llama-3.2-3B-Instruct", "main", via=KVFIT_COUNTS,
                           sibling_of="meta-llama/Llama-3.2-3B-Instruct", as_of=_D)),
        notes=("The instruction-tuned 3B: tied head, 24 query heads share 8 KV heads.",),
    ),
)
