"""Catalog records: Qwen2.5 dense models and Qwen3 dense and mixture-of-experts models."""

from __future__ import annotations

from calculators.catalog.model_record import (
    ATLAS,
    KVFIT_CONFIGS,
    KVFIT_COUNTS,
    READ_ON,
    READ_ON_2025_MODELS,
    ModelRecord,
    Published,
    config_source,
    hub_api_source,
    keras_source,
    record,
)
from calculators.catalog.sources import Source

_QWEN25_SHARED = {
    "model_type": "qwen2", "rope_theta": 1000000.0, "use_sliding_window": False, "torch_dtype": "bfloat16",
}

_QWEN_VOCAB_NOTE = (
    "vocab_size in config.json ({}) is the padded embedding size, larger than the tokenizer's "
    "151,665 tokens; the checkpoint stores the padded rows, so counts use the config value."
)

_QWEN3_SHARED = {
    "model_type": "qwen3", "head_dim": 128, "vocab_size": 151936, "max_position_embeddings": 40960,
    "use_sliding_window": False,
}
_QWEN3_NOTE = (
    "Qwen3 drops Qwen2's q/k/v biases and adds an RMSNorm over each query and key head (q_norm, k_norm: "
    "head_dim weights each); head_dim is 128 whatever hidden_size / heads is."
)

RECORDS: tuple[ModelRecord, ...] = (
    # ---- Qwen2.5 -------------------------------------------------------------------
    record(
        "qwen2.5-0.5b", "Qwen2.5 0.5B", "Qwen/Qwen2.5-0.5B", "qwen2.5",
        {**_QWEN25_SHARED, "hidden_size": 896, "num_hidden_layers": 24, "num_attention_heads": 14,
         "num_key_value_heads": 2, "intermediate_size": 4864, "vocab_size": 151936,
         "tie_word_embeddings": True, "max_position_embeddings": 32768, "sliding_window": 32768,
         "max_window_layers": 24, "rms_norm_eps": 1e-06},
        config_source("Qwen/Qwen2.5-0.5B", "copies of its shape keys in public GitHub repositories"),
        Published(
            494032768,
            keras_source("qwen2.5_0.5b_en", "qwen", sibling_of="Qwen/Qwen2.5-0.5B")),
        notes=(_QWEN_VOCAB_NOTE.format("151,936"),
               "Qwen2 layers have q/k/v biases and no o_proj bias; the output head is tied."),
    ),
    record(
        "qwen2.5-1.5b", "Qwen2.5 1.5B", "Qwen/Qwen2.5-1.5B", "qwen2.5",
        {**_QWEN25_SHARED, "hidden_size": 1536, "num_hidden_layers": 28, "num_attention_heads": 12,
         "num_key_value_heads": 2, "intermediate_size": 8960, "vocab_size": 151936,
         "tie_word_embeddings": True, "max_position_embeddings": 131072, "sliding_window": 131072,
         "max_window_layers": 28, "rms_norm_eps": 1e-06},
        config_source("Qwen/Qwen2.5-1.5B", "copies of its shape keys in public GitHub repositories"),
        Published(
            1543714304,
            Source(
                title=("Nikolić, Baluta & Saxena, 'Model Provenance Testing for Large Language Models' "
                       "(arXiv:2502.00706v2, NeurIPS 2025), Appendix Table 4 '# params' column, "
                       "row Qwen/Qwen2.5-1.5B-Instruct (the Instruct checkpoint has the same tensor shapes)"),
                url="https://arxiv.org/abs/2502.00706",
                as_of=READ_ON,
                kind="spec",
            )),
        notes=(_QWEN_VOCAB_NOTE.format("151,936"),
               "The published figure is for the Instruct checkpoint, which shares the base model's shapes; "
               "no exact count read from the Qwen/Qwen2.5-1.5B repository itself was found.",
               "KerasHub lists the same 1,543,714,304 for Qwen2.5-Math-1.5B, a separate model of the same shapes."),
    ),
    record(
        "qwen2.5-3b", "Qwen2.5 3B", "Qwen/Qwen2.5-3B", "qwen2.5",
        {**_QWEN25_SHARED, "hidden_size": 2048, "num_hidden_layers": 36, "num_attention_heads": 16,
         "num_key_value_heads": 2, "intermediate_size": 11008, "vocab_size": 151936,
         "tie_word_embeddings": True, "max_position_embeddings": 32768, "sliding_window": 32768,
         "max_window_layers": 36, "rms_norm_eps": 1e-06},
        config_source("Qwen/Qwen2.5-3B", "copies of its shape keys in public GitHub repositories"),
        Published(
            3085938688,
            keras_source("qwen2.5_3b_en", "qwen", sibling_of="Qwen/Qwen2.5-3B")),
        notes=(_QWEN_VOCAB_NOTE.format("151,936"),),
    ),
    record(
        "qwen2.5-7b", "Qwen2.5 7B", "Qwen/Qwen2.5-7B", "qwen2.5",
        {**_QWEN25_SHARED, "hidden_size": 3584, "num_hidden_layers": 28, "num_attention_heads": 28,
         "num_key_value_heads": 4, "intermediate_size": 18944, "vocab_size": 152064,
         "tie_word_embeddings": False, "max_position_embeddings": 131072, "sliding_window": 131072,
         "max_window_layers": 28, "rms_norm_eps": 1e-06},
        config_source("Qwen/Qwen2.5-7B", "copies of its shape keys in public GitHub repositories"),
        Published(
            7615616512,
            hub_api_source("Qwen/Qwen2.5-7B-Instruct", "main", via=ATLAS.format("qwen2.5-7b.api.json"),
                           sibling_of="Qwen/Qwen2.5-7B")),
        notes=(_QWEN_VOCAB_NOTE.format("152,064"),
               "The Instruct repository's safetensors index gives 15,231,233,024 bytes = 2 x the count.",
               "KerasHub's qwen2.5_7b_en preset lists 6,993,420,288, which matches neither the hub "
               "nor the shapes; it is not used."),
    ),
    record(
        "qwen2.5-14b", "Qwen2.5 14B", "Qwen/Qwen2.5-14B", "qwen2.5",
        {**_QWEN25_SHARED, "hidden_size": 5120, "num_hidden_layers": 48, "num_attention_heads": 40,
         "num_key_value_heads": 8, "intermediate_size": 13824, "vocab_size": 152064,
         "tie_word_embeddings": False, "max_position_embeddings": 131072, "sliding_window": 131072,
         "max_window_layers": 48, "rms_norm_eps": 1e-05},
        config_source("Qwen/Qwen2.5-14B", "copies of its shape keys in public GitHub repositories"),
        Published(
            14770033664,
            Source(
                title=("Qwen/Qwen2.5-14B model.safetensors.index.json metadata.total_size at revision "
                       "97e1e76335b7017d8f67c08a19d103c0504298c9, 29,540,067,328 bytes / 2 (bfloat16); value as "
                       "checked in docs/cs-oci-ord-two-client-14b-full-model-runbook.md under research/llm_fl_stress "
                       "on branch codex/llm-fl-real-14b of github.com/nvkevlu/NVFlare"),
                url=("https://github.com/nvkevlu/NVFlare/blob/4ef4d97af17bdc294158b29732bdecfc43ac0c86/"
                     "research/llm_fl_stress/docs/cs-oci-ord-two-client-14b-full-model-runbook.md"),
                as_of=READ_ON,
                kind="derived",
            )),
        notes=(_QWEN_VOCAB_NOTE.format("152,064"),
               "The published figure halves the safetensors index total_size (29,540,067,328 bytes over "
               "579 bfloat16 tensors in 8 shards), which the runbook pins for this revision."),
    ),
    record(
        "qwen2.5-32b", "Qwen2.5 32B", "Qwen/Qwen2.5-32B", "qwen2.5",
        {**_QWEN25_SHARED, "hidden_size": 5120, "num_hidden_layers": 64, "num_attention_heads": 40,
         "num_key_value_heads": 8, "intermediate_size": 27648, "vocab_size": 152064,
         "tie_word_embeddings": False, "max_position_embeddings": 131072, "sliding_window": 131072,
         "max_window_layers": 64, "rms_norm_eps": 1e-05},
        config_source("Qwen/Qwen2.5-32B", "copies of its shape keys in public GitHub repositories"),
        Published(
            32763876352,
            keras_source("qwen2.5_instruct_32b_en", "qwen", sibling_of="Qwen/Qwen2.5-32B-Instruct")),
        notes=(_QWEN_VOCAB_NOTE.format("152,064"),
               "The published figure is for the Instruct checkpoint, which shares the base model's shapes."),
    ),
    record(
        "qwen2.5-72b", "Qwen2.5 72B", "Qwen/Qwen2.5-72B", "qwen2.5",
        {**_QWEN25_SHARED, "hidden_size": 8192, "num_hidden_layers": 80, "num_attention_heads": 64,
         "num_key_value_heads": 8, "intermediate_size": 29568, "vocab_size": 152064,
         "tie_word_embeddings": False, "max_position_embeddings": 131072, "sliding_window": 131072,
         "max_window_layers": 80, "rms_norm_eps": 1e-05},
        config_source("Qwen/Qwen2.5-72B", "copies of its shape keys in public GitHub repositories"),
        Published(
            72706203648,
            keras_source("qwen2.5_instruct_72b_en", "qwen", sibling_of="Qwen/Qwen2.5-72B-Instruct")),
        notes=(_QWEN_VOCAB_NOTE.format("152,064"),
               "The published figure is for the Instruct checkpoint, which shares the base model's shapes."),
    ),
    # ---- Qwen3 (dense) ---------------------------------------------------------------
    record(
        "qwen3-0.6b", "Qwen3 0.6B", "Qwen/Qwen3-0.6B", "qwen3",
        {**_QWEN3_SHARED, "hidden_size": 1024, "num_hidden_layers": 28, "num_attention_heads": 16,
         "num_key_value_heads": 8, "intermediate_size": 3072, "tie_word_embeddings": True,
         "max_window_layers": 28},
        config_source("Qwen/Qwen3-0.6B", "verbatim copies in public GitHub repositories", as_of=READ_ON_2025_MODELS),
        Published(
            751632384,
            hub_api_source("Qwen/Qwen3-0.6B", "c1899de289a04d12100db370d81485cdf75e47ca",
                           via=("the saved hub response asserted in hub/repo_test.go of a public Go client "
                                "(safetensors.total and parameters.BF16 both 751,632,384)"),
                           as_of=READ_ON_2025_MODELS), extra=151936 * 1024),
        notes=(_QWEN3_NOTE,
               "The output head is tied to the embedding (tie_word_embeddings true), yet the checkpoint "
               "stores lm_head.weight as its own 151,936 x 1024 tensor, which the hub total counts: "
               "published_extra_elements = vocab x hidden. The model card's '0.6B' and 'non-embedding "
               "0.44B' count it once."),
    ),
    record(
        "qwen3-8b", "Qwen3 8B", "Qwen/Qwen3-8B", "qwen3",
        {**_QWEN3_SHARED, "hidden_size": 4096, "num_hidden_layers": 36, "num_attention_heads": 32,
         "num_key_value_heads": 8, "intermediate_size": 12288, "tie_word_embeddings": False},
        config_source("Qwen/Qwen3-8B", KVFIT_CONFIGS, as_of=READ_ON_2025_MODELS),
        Published(
            8190735360,
            hub_api_source("Qwen/Qwen3-8B", "main", via=KVFIT_COUNTS, as_of=READ_ON_2025_MODELS)),
        notes=(_QWEN3_NOTE,),
    ),
    record(
        "qwen3-32b", "Qwen3 32B", "Qwen/Qwen3-32B", "qwen3",
        {**_QWEN3_SHARED, "hidden_size": 5120, "num_hidden_layers": 64, "num_attention_heads": 64,
         "num_key_value_heads": 8, "intermediate_size": 25600, "tie_word_embeddings": False},
        config_source("Qwen/Qwen3-32B", KVFIT_CONFIGS, as_of=READ_ON_2025_MODELS),
        Published(
            32762123264,
            hub_api_source("Qwen/Qwen3-32B", "main", via=KVFIT_COUNTS, as_of=READ_ON_2025_MODELS)),
        notes=(_QWEN3_NOTE, "64 query heads of 128 make q_proj 8192 wide, wider than hidden_size 5120."),
    ),
    # ---- Qwen3 (mixture of experts) ---------------------------------------------------
    record(
        "qwen3-30b-a3b", "Qwen3 30B-A3B", "Qwen/Qwen3-30B-A3B", "qwen3",
        {**_QWEN3_SHARED, "model_type": "qwen3_moe", "hidden_size": 2048, "num_hidden_layers": 48,
         "num_attention_heads": 32, "num_key_value_heads": 4, "intermediate_size": 6144,
         "moe_intermediate_size": 768, "num_experts": 128, "num_experts_per_tok": 8, "mlp_only_layers": [],
         "tie_word_embeddings": False},
        config_source("Qwen/Qwen3-30B-A3B", KVFIT_CONFIGS, as_of=READ_ON_2025_MODELS),
        Published(
            30532122624,
            hub_api_source("Qwen/Qwen3-30B-A3B", "main", via=KVFIT_COUNTS, as_of=READ_ON_2025_MODELS)),
        notes=(_QWEN3_NOTE,
               "Every layer is MoE: 128 experts of width 768, 8 per token, no shared expert; "
               "intermediate_size 6144 is unused by this checkpoint (no dense layers).",
               "The name gives the size in whole billions: 30B total, 3B activated per token."),
    ),
    record(
        "qwen3-235b-a22b", "Qwen3 235B-A22B", "Qwen/Qwen3-235B-A22B", "qwen3",
        {**_QWEN3_SHARED, "model_type": "qwen3_moe", "hidden_size": 4096, "num_hidden_layers": 94,
         "num_attention_heads": 64, "num_key_value_heads": 4, "intermediate_size": 12288,
         "moe_intermediate_size": 1536, "num_experts": 128, "num_experts_per_tok": 8, "mlp_only_layers": [],
         "tie_word_embeddings": False},
        config_source("Qwen/Qwen3-235B-A22B", KVFIT_CONFIGS, as_of=READ_ON_2025_MODELS),
        Published(
            235093634560,
            hub_api_source("Qwen/Qwen3-235B-A22B", "main", via=KVFIT_COUNTS, as_of=READ_ON_2025_MODELS)),
        notes=(_QWEN3_NOTE,
               "Every layer is MoE: 128 experts of width 1536, 8 per token, no shared expert.",
               "The name gives the size in whole billions: 235B total, 22B activated per token."),
    ),
)
