"""Catalog records: more hybrid models whose layers are not all attention.

Qwen3-Coder-Next (Qwen3-Next's Gated DeltaNet + gated attention layout), NVIDIA Nemotron 3 Nano
30B-A3B (Mamba2 + attention + MoE layers), Nemotron-H 8B and 47B and Nemotron Nano 12B v2
(Mamba2 + attention + MLP layers), and Mistral's Mamba-Codestral 7B (pure Mamba2).
"""

from __future__ import annotations

from calculators.catalog.model_record import (
    AIC_CONFIGS,
    MOE_JOURNAL,
    READ_ON_2026_MORE,
    TRANSFORMERS_DEFAULTS,
    ModelRecord,
    Published,
    config_source,
    hub_api_source,
    record,
)
from calculators.catalog.model_records.hybrid import _NEMOTRON_NOTE
from calculators.catalog.sources import Source

_D = READ_ON_2026_MORE
_BRIDGE = ("the {} model provider in src/megatron/bridge/models/nemotronh/nemotron_h_provider.py of "
           "github.com/NVIDIA-NeMo/Megatron-Bridge (hybrid_layer_pattern, hidden_size, ffn_hidden_size, "
           "num_attention_heads, num_query_groups 8, kv_channels 128, mamba_num_heads, mamba_head_dim, "
           "mamba_state_dim, mamba_num_groups 8 map one to one onto config.json's keys)")
_NEMOTRON_H = {
    "model_type": "nemotron_h", "num_key_value_heads": 8, "head_dim": 128, "n_groups": 8, "conv_kernel": 4,
    "expand": 2, "mlp_hidden_act": "relu2", "use_conv_bias": True, "mamba_proj_bias": False, "use_bias": False,
    "mlp_bias": False, "attention_bias": False, "vocab_size": 131072, "tie_word_embeddings": False,
}
_NEMOTRON_FIXED_NOTE = (
    "The keys the provider does not set (conv kernel 4, expand 2, squared-ReLU MLP, conv bias and no other "
    "biases, untied head) are the family's: the same in the catalog's nemotron-h-56b (NVIDIA's config.json, "
    "verbatim) and nemotron-nano-9b-v2 records and in " + TRANSFORMERS_DEFAULTS.format("NemotronHConfig", "nemotron_h")
    + "."
)

_QWEN3_NEXT_NOTE = (
    "The Qwen3-Next layout: three Gated DeltaNet (linear attention) layers to one gated full-attention layer "
    "(full_attention_interval 4: 36 linear, 12 full); a DeltaNet layer keeps a fixed state per sequence, only the "
    "12 full layers grow a KV cache (2 KV heads of 256). Every layer is MoE: 512 experts of 512, 10 per token, "
    "and a gated shared expert of 512."
)

RECORDS: tuple[ModelRecord, ...] = (
    record(
        "qwen3-coder-next", "Qwen3-Coder-Next", "Qwen/Qwen3-Coder-Next", "qwen3",
        {"model_type": "qwen3_next", "hidden_size": 2048, "num_hidden_layers": 48, "num_attention_heads": 16,
         "num_key_value_heads": 2, "head_dim": 256, "intermediate_size": 5120, "full_attention_interval": 4,
         "linear_conv_kernel_dim": 4, "linear_key_head_dim": 128, "linear_value_head_dim": 128,
         "linear_num_key_heads": 16, "linear_num_value_heads": 32, "num_experts": 512, "num_experts_per_tok": 10,
         "moe_intermediate_size": 512, "shared_expert_intermediate_size": 512, "decoder_sparse_step": 1,
         "mlp_only_layers": [], "norm_topk_prob": True, "partial_rotary_factor": 0.25, "attention_bias": False,
         "vocab_size": 151936, "max_position_embeddings": 262144, "use_sliding_window": False,
         "rms_norm_eps": 1e-06, "tie_word_embeddings": False, "torch_dtype": "bfloat16"},
        config_source("Qwen/Qwen3-Coder-Next", "the trimmed config.json copy test/fixtures/hf/qwen3-coder-next.config.json "
                      "in github.com/zaid-cdlg/inference-atlas (commit 7f627b5d1b696d2a7f1a1bc56d18d7cdca705ae6) "
                      "for the shape keys it keeps; the linear-attention and shared-expert keys, vocab_size and the "
                      "untied head from " + TRANSFORMERS_DEFAULTS.format("Qwen3NextConfig", "qwen3_next")
                      + " (Qwen3-Next-80B-A3B's values, as in the catalog's qwen3-next-80b-a3b record); the exact hub "
                      "total confirms every shape", as_of=_D),
        Published(
            79674391296,
            hub_api_source("Qwen/Qwen3-Coder-Next", "main",
                           via="the saved hub response test/fixtures/hf/qwen3-coder-next.api.json in "
                               "github.com/zaid-cdlg/inference-atlas (commit 6dcc306d19aa35aaaddcc498fc103b375947617b)",
                           as_of=_D)),
        notes=(_QWEN3_NEXT_NOTE,
               "Qwen3-Coder-Next is the coding model on the Qwen3-Next-80B-A3B architecture. Unlike "
               "Qwen3-Next-80B-A3B-Instruct, its checkpoint stores no multi-token-prediction layer: the hub total "
               "(BF16 79,674,391,296) is exactly what transformers builds.",
               "Qwen: 80B total, 3B activated (rounded)."),
    ),
    record(
        "nemotron-3-nano-30b-a3b", "NVIDIA Nemotron 3 Nano 30B-A3B", "nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-BF16",
        "nemotron",
        {"model_type": "nemotron_h", "hidden_size": 2688, "num_hidden_layers": 52,
         "hybrid_override_pattern": "MEMEM*EMEMEM*EMEMEM*EMEMEM*EMEMEM*EMEMEMEM*EMEMEMEME",
         "num_attention_heads": 32, "num_key_value_heads": 2, "head_dim": 128, "intermediate_size": 1856,
         "moe_intermediate_size": 1856, "moe_shared_expert_intermediate_size": 3712, "n_routed_experts": 128,
         "n_shared_experts": 1, "num_experts_per_tok": 6, "n_group": 1, "topk_group": 1, "norm_topk_prob": True,
         "routed_scaling_factor": 2.5, "mamba_num_heads": 64, "mamba_head_dim": 64, "n_groups": 8,
         "ssm_state_size": 128, "conv_kernel": 4, "expand": 2, "chunk_size": 128, "mamba_hidden_act": "silu",
         "mlp_hidden_act": "relu2", "use_conv_bias": True, "mamba_proj_bias": False, "use_bias": False,
         "mlp_bias": False, "attention_bias": False, "partial_rotary_factor": 1.0, "rope_theta": 10000,
         "residual_in_fp32": False, "sliding_window": None, "vocab_size": 131072,
         "max_position_embeddings": 262144, "norm_eps": 1e-05, "layer_norm_epsilon": 1e-05,
         "tie_word_embeddings": False, "torch_dtype": "bfloat16"},
        config_source("nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-BF16",
                      AIC_CONFIGS.format("nvidia--NVIDIA-Nemotron-3-Nano-30B-A3B-BF16"), as_of=_D),
        notes=("52 layers: 23 Mamba2 mixers (64 heads of 64, 8 groups, state 128), 6 attention layers (32 query "
               "heads, 2 KV heads of 128) and 23 MoE layers (E: 128 routed experts of width 1856, 6 per token, and "
               "a shared expert of 3712, all squared-ReLU, sigmoid router with a score-correction bias).",
               "No exact published count matches the model as ModelSpec counts it: the hub total of the BF16 "
               "repository, 31,577,937,344 (" + MOE_JOURNAL + "), is transformers' parameters without the 23 routers' "
               "e_score_correction_bias (23 x 128 = 2,944), which transformers keeps as persistent buffers and "
               "ModelSpec counts; llama.cpp's GGUF conversion reports 31,577,940,288, ModelSpec's figure. NVIDIA "
               "gives 31.6B total parameters, which the tests check."),
    ),
    record(
        "nemotron-h-8b", "Nemotron-H 8B Base", "nvidia/Nemotron-H-8B-Base-8K", "nemotron",
        {**_NEMOTRON_H, "hidden_size": 4096, "num_hidden_layers": 52,
         "hybrid_override_pattern": "M-M-M-M*-M-M-M-M-M*-M-M-M-M-M*-M-M-M-M-M*-M-M-M-M-M-",
         "num_attention_heads": 32, "intermediate_size": 21504, "mamba_num_heads": 128, "mamba_head_dim": 64,
         "ssm_state_size": 128, "max_position_embeddings": 8192},
        config_source("nvidia/Nemotron-H-8B-Base-8K", _BRIDGE.format("NemotronHModelProvider8B") + "; vocab_size "
                      "131,072 and the 8,192-token context: the docstring defaults of vLLM's NemotronHConfig "
                      "(vllm/transformers_utils/configs/nemotron_h.py), written for this model", as_of=_D),
        notes=(_NEMOTRON_NOTE, _NEMOTRON_FIXED_NOTE,
               "52 layers: 24 Mamba2 (128 heads of 64, d_inner 8,192), 4 attention, 24 MLP (21,504 wide).",
               "No exact count from the Hub was found; an architecture summary of this checkpoint in a public GitHub "
               "repository gives 8,100,852,736, ModelSpec's figure. NVIDIA names it 8B, which the tests check."),
    ),
    record(
        "nemotron-h-47b", "Nemotron-H 47B Base", "nvidia/Nemotron-H-47B-Base-8K", "nemotron",
        {**_NEMOTRON_H, "hidden_size": 8192, "num_hidden_layers": 98,
         "hybrid_override_pattern": ("M-M-M-M-M-M-M-M-M*-M-M-M-M-M-M-M-M-M-M*-M-M-M-M-M*-M-M-M-M-M*-M-M-M-M-M-M-M"
                                     "---MM---M-M*-M-M-M-M-M-"),
         "num_attention_heads": 64, "intermediate_size": 30720, "mamba_num_heads": 256, "mamba_head_dim": 64,
         "ssm_state_size": 256, "max_position_embeddings": 8192},
        config_source("nvidia/Nemotron-H-47B-Base-8K", _BRIDGE.format("NemotronHModelProvider47B") + "; vocab_size "
                      "131,072: that of Nemotron-H-56B (the catalog's nemotron-h-56b record, NVIDIA's config.json), "
                      "from which NVIDIA pruned this model with MiniPuzzle (Nemotron-H paper, arXiv:2504.03624), "
                      "keeping the tokenizer", as_of=_D),
        notes=(_NEMOTRON_NOTE, _NEMOTRON_FIXED_NOTE,
               "98 layers: 45 Mamba2 (256 heads of 64, state 256), 5 attention, 48 MLP (30,720 wide): the 56B "
               "pruned in depth and MLP width.",
               "No exact published count was found; NVIDIA names it 47B, which the tests check."),
    ),
    record(
        "nemotron-nano-12b-v2", "NVIDIA Nemotron Nano 12B v2", "nvidia/NVIDIA-Nemotron-Nano-12B-v2", "nemotron",
        {**_NEMOTRON_H, "hidden_size": 5120, "num_hidden_layers": 62,
         "hybrid_override_pattern": "M-M-M-M*-M-M-M-M*-M-M-M-M*-M-M-M-M*-M-M-M-M*-M-M-M-M*-M-M-M-M-",
         "num_attention_heads": 40, "intermediate_size": 20480, "mamba_num_heads": 128, "mamba_head_dim": 80,
         "ssm_state_size": 128, "chunk_size": 128, "max_position_embeddings": 131072},
        config_source("nvidia/NVIDIA-Nemotron-Nano-12B-v2", "the config.json keys of "
                      "nvidia/NVIDIA-Nemotron-Nano-12B-v2-Base (the same shapes) listed in a model-spec note in a public "
                      "GitHub repository (hidden 5120, 62 layers, 40/8 heads of 128, MLP 20480, the pattern, 128 Mamba "
                      "heads of 80, state 128, context and vocab 131,072), which " + _BRIDGE.format(
                          "NemotronNanoModelProvider12Bv2") + " confirms", as_of=_D),
        notes=(_NEMOTRON_NOTE, _NEMOTRON_FIXED_NOTE,
               "62 layers: 28 Mamba2 (128 heads of 80, d_inner 10,240), 6 attention, 28 MLP (20,480 wide). "
               "Nemotron Nano 9B v2 is this model pruned and distilled (Minitron).",
               "No exact published count was found; NVIDIA names it 12B, which the tests check."),
    ),
    record(
        "mamba-codestral-7b", "Mamba-Codestral 7B", "mistralai/Mamba-Codestral-7B-v0.1", "mistral",
        {"model_type": "mamba2", "hidden_size": 4096, "num_hidden_layers": 64, "num_heads": 128, "head_dim": 64,
         "state_size": 128, "expand": 2, "conv_kernel": 4, "n_groups": 8, "use_bias": False, "use_conv_bias": True,
         "vocab_size": 32768, "layer_norm_epsilon": 1e-05, "residual_in_fp32": True, "chunk_size": 256,
         "tie_word_embeddings": False},
        config_source("mistralai/Mamba-Codestral-7B-v0.1", TRANSFORMERS_DEFAULTS.format("Mamba2Config", "mamba2")
                      + " (its docstring names state-spaces/mamba2-2.8b, but the defaults are this model's: 64 layers "
                      "of width 4096, 128 heads of 64, 8 groups, a 32,768-token vocabulary); the exact published count "
                      "confirms every shape", as_of=_D),
        Published(
            7285403648,
            Source(
                title=("Mistral AI's figure for Codestral Mamba, 'exactly 7,285,403,648 parameters', as quoted on the "
                       "AI/TLDR model page 'Codestral Mamba'"),
                url="https://ai-tldr.dev/models/codestral-mamba/",
                as_of=_D,
                kind="spec",
            )),
        notes=("A pure Mamba2 model: 64 identical layers, each one RMSNorm and one Mamba2 mixer (in_proj 4096 -> "
               "2 x 8192 + 2 x 8 x 128 + 128, a depthwise conv of kernel 4 over 8192 + 2 x 8 x 128 channels, a gated "
               "RMSNorm, out_proj 8192 -> 4096); no attention and no MLP. Each sequence holds a fixed conv and SSM "
               "state (128 heads x 64 x 128) per layer instead of a KV cache.",
               "The Hugging Face repository ships Mistral's consolidated.safetensors and params.json beside the "
               "transformers files; both hold the same 7,285,403,648 elements."),
    ),
)
