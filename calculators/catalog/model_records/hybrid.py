"""Catalog records (pending): hybrid models whose layers are not all attention.

Qwen3-Next (Gated DeltaNet linear attention + gated full attention), Nemotron-H and NVIDIA
Nemotron Nano 2 (Mamba2 + attention + MLP layers), Granite 4.0 H (Mamba2 + attention with
MoE MLPs). Not registered: :mod:`calculators.model_config` does not read per-layer kinds yet.
"""

from __future__ import annotations

from calculators.catalog.model_record import (
    AIC_CONFIGS,
    KVFIT_CONFIGS,
    KVFIT_COUNTS,
    READ_ON_2026_MODELS,
    TRANSFORMERS_DEFAULTS,
    ModelRecord,
    Published,
    config_source,
    hub_api_source,
    record,
)

_D = READ_ON_2026_MODELS

#: Qwen3-Next's stored multi-token-prediction layer (mtp.*), not built by transformers: one
#: full-attention MoE decoder layer (gated attention: q_proj 2048 -> 16 x 256 x 2, k/v 2048 -> 2 x 256,
#: o_proj 4096 -> 2048, q/k norms 256 each; 512 experts + a shared expert of width 512 with its gate;
#: two RMSNorms), fc (2 x 2048 -> 2048) and three RMSNorms (pre_fc_norm_embedding, pre_fc_norm_hidden, norm).
_H = 2048
QWEN3_NEXT_MTP = (
    (_H * 8192 + 2 * _H * 512 + 4096 * _H + 2 * 256)
    + (512 * 3 * _H * 512 + 3 * _H * 512 + _H + 512 * _H) + 2 * _H
    + 2 * _H * _H + 3 * _H
)

_NEMOTRON_NOTE = (
    "hybrid_override_pattern gives each layer's kind: M = Mamba2 mixer, * = self-attention, - = MLP "
    "(non-gated, squared-ReLU, mlp_hidden_act relu2). Each layer is one block (one mixer and one RMSNorm), "
    "not an attention + MLP pair. Mamba2 layers hold a fixed conv + SSM state per sequence instead of a KV cache."
)
_NEMOTRON_DEFAULTS_NOTE = (
    "The copy read is trimmed to shape keys; mlp_hidden_act relu2, use_conv_bias true, mamba_proj_bias false, "
    "use_bias false, mlp_bias false, attention_bias false and expand 2 are transformers 5.23.0's NemotronHConfig "
    "defaults (the values of NVIDIA's published configs), and the exact match with the hub total confirms them."
)

RECORDS: tuple[ModelRecord, ...] = (
    record(
        "qwen3-next-80b-a3b", "Qwen3-Next 80B-A3B Instruct", "Qwen/Qwen3-Next-80B-A3B-Instruct", "qwen3",
        {"model_type": "qwen3_next", "hidden_size": 2048, "num_hidden_layers": 48, "num_attention_heads": 16,
         "num_key_value_heads": 2, "head_dim": 256, "intermediate_size": 5120, "full_attention_interval": 4,
         "linear_conv_kernel_dim": 4, "linear_key_head_dim": 128, "linear_value_head_dim": 128,
         "linear_num_key_heads": 16, "linear_num_value_heads": 32, "num_experts": 512, "num_experts_per_tok": 10,
         "moe_intermediate_size": 512, "shared_expert_intermediate_size": 512, "decoder_sparse_step": 1,
         "mlp_only_layers": [], "norm_topk_prob": True, "partial_rotary_factor": 0.25, "attention_bias": False,
         "vocab_size": 151936, "max_position_embeddings": 262144, "use_sliding_window": False,
         "rms_norm_eps": 1e-06, "tie_word_embeddings": False},
        config_source("Qwen/Qwen3-Next-80B-A3B-Instruct", KVFIT_CONFIGS + "; partial_rotary_factor, "
                      "decoder_sparse_step, norm_topk_prob, attention_bias, rms_norm_eps from "
                      + TRANSFORMERS_DEFAULTS.format("Qwen3NextConfig", "qwen3_next")
                      + ", documented as this checkpoint's", as_of=_D),
        Published(
            81324862720,
            hub_api_source("Qwen/Qwen3-Next-80B-A3B-Instruct", "main", via=KVFIT_COUNTS, as_of=_D),
            extra=QWEN3_NEXT_MTP),
        notes=("Layers cycle three Gated DeltaNet (linear attention) layers and one gated full-attention layer "
               "(full_attention_interval 4: 36 linear, 12 full). A DeltaNet layer keeps a fixed state per "
               "sequence (a short convolution over q/k/v and a 32-head 128 x 128 recurrent state); only the 12 "
               "full layers grow a KV cache (2 KV heads of 256). Full attention is gated: q_proj emits 2 x "
               "heads x head_dim (query and gate). Every layer is MoE: 512 experts of 512 (10 per token) plus a "
               "gated shared expert.",
               "published_extra_elements is the stored MTP layer (1,650,471,424), which transformers does not "
               "build; the tests re-derive it. Qwen: 80B total, 3B activated (rounded)."),
    ),
    record(
        "nemotron-nano-9b-v2", "NVIDIA Nemotron Nano 9B v2", "nvidia/NVIDIA-Nemotron-Nano-9B-v2", "nemotron",
        {"model_type": "nemotron_h", "hidden_size": 4480, "num_hidden_layers": 56,
         "hybrid_override_pattern": "M-M-M-MM-M-M-M*-M-M-M*-M-M-M-M*-M-M-M-M*-M-MM-M-M-M-M-M-",
         "num_attention_heads": 40, "num_key_value_heads": 8, "head_dim": 128, "intermediate_size": 15680,
         "mamba_num_heads": 128, "mamba_head_dim": 80, "n_groups": 8, "ssm_state_size": 128, "conv_kernel": 4,
         "expand": 2, "mlp_hidden_act": "relu2", "use_conv_bias": True, "mamba_proj_bias": False,
         "use_bias": False, "mlp_bias": False, "attention_bias": False, "vocab_size": 131072,
         "max_position_embeddings": 131072, "tie_word_embeddings": False},
        config_source("nvidia/NVIDIA-Nemotron-Nano-9B-v2", KVFIT_CONFIGS, as_of=_D),
        Published(
            8888227328,
            hub_api_source("nvidia/NVIDIA-Nemotron-Nano-9B-v2", "main", via=KVFIT_COUNTS, as_of=_D)),
        notes=(_NEMOTRON_NOTE, _NEMOTRON_DEFAULTS_NOTE,
               "56 layers: 27 Mamba2, 4 attention, 25 MLP. The Mamba2 mixer has 128 heads of 80 "
               "(d_inner 10,240), 8 groups, state size 128, conv kernel 4."),
    ),
    record(
        "nemotron-h-56b", "Nemotron-H 56B Base", "nvidia/Nemotron-H-56B-Base-8K", "nemotron",
        {"model_type": "nemotron_h", "hidden_size": 8192, "num_hidden_layers": 118,
         "hybrid_override_pattern": ("M-M-M-M*-M-M-M-M-M*-M-M-M-M-M*-M-M-M-M-M*-M-M-M-M-M*-M-M-M-M-M*-M-M-M-M-M*"
                                     "-M-M-M-M-M*-M-M-M-M-M*-M-M-M-M-M*-M-M-M-M-M-"),
         "num_attention_heads": 64, "num_key_value_heads": 8, "attention_head_dim": 128,
         "intermediate_size": 32768, "mamba_num_heads": 256, "mamba_head_dim": 64, "n_groups": 8,
         "ssm_state_size": 256, "conv_kernel": 4, "expand": 2, "chunk_size": 128, "time_step_rank": 512,
         "mlp_hidden_act": "relu2", "mamba_hidden_act": "silu", "use_conv_bias": True, "mamba_proj_bias": False,
         "use_bias": False, "mlp_bias": False, "attention_bias": False, "residual_in_fp32": False,
         "vocab_size": 131072, "max_position_embeddings": 8192, "tie_word_embeddings": False,
         "rms_norm_eps": 1e-05, "torch_dtype": "bfloat16"},
        config_source("nvidia/Nemotron-H-56B-Base-8K", AIC_CONFIGS.format("nvidia--Nemotron-H-56B-Base-8K"),
                      as_of=_D),
        notes=(_NEMOTRON_NOTE,
               "118 layers: 54 Mamba2, 10 attention, 54 MLP; Mamba2 with 256 heads of 64 (d_inner 16,384), "
               "8 groups, state size 256.",
               "No exact published count was found; NVIDIA names it 56B, which the tests check."),
    ),

)

#: Granite 4.0 H (granitemoehybrid): kept out of the catalog until the reader counts its family.
GRANITE_RECORDS: tuple[ModelRecord, ...] = (
    record(
        "granite-4.0-h-small", "Granite 4.0 H Small", "ibm-granite/granite-4.0-h-small", "granite",
        {"model_type": "granitemoehybrid", "hidden_size": 4096, "num_hidden_layers": 40,
         "layer_types": (["mamba"] * 5 + ["attention"] + ["mamba"] * 9 + ["attention"] + ["mamba"] * 9
                         + ["attention"] + ["mamba"] * 9 + ["attention"] + ["mamba"] * 4),
         "num_attention_heads": 32, "num_key_value_heads": 8, "intermediate_size": 768,
         "num_local_experts": 72, "num_experts_per_tok": 10, "shared_intermediate_size": 1536,
         "mamba_n_heads": 128, "mamba_d_head": 64, "mamba_n_groups": 1, "mamba_d_state": 128,
         "mamba_d_conv": 4, "mamba_expand": 2, "mamba_conv_bias": True, "mamba_proj_bias": False,
         "attention_bias": False, "vocab_size": 100352,
         "max_position_embeddings": 131072, "tie_word_embeddings": True},
        config_source("ibm-granite/granite-4.0-h-small", KVFIT_CONFIGS + " (the layer_types list written out; "
                      "mamba_conv_bias, mamba_proj_bias, attention_bias are transformers 5.23.0's "
                      "GraniteMoeHybridConfig defaults, confirmed by the exact hub total)", as_of=_D),
        Published(
            32207337984,
            hub_api_source("ibm-granite/granite-4.0-h-small", "main", via=KVFIT_COUNTS, as_of=_D)),
        notes=("40 layers: 36 Mamba2 mixers and 4 attention layers (5, 15, 25, 35), each followed by a MoE of 72 "
               "experts of width 768 (10 per token) plus a shared expert of width 1536; no positional encoding "
               "in attention; tied head.",
               "llama.cpp's GGUF of this model reports the same 32,207,337,984 parameters.",
               "IBM: 32B total, 9B active (rounded)."),
    ),
)
