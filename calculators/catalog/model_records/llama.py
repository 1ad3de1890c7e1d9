"""Catalog records: Llama 2, 3, 3.1, 3.2 and 3.3, and Yi (a Llama-architecture model)."""

from __future__ import annotations

from calculators.catalog.model_record import (
    HELDOUT,
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

_LLAMA2_SHARED = {
    "model_type": "llama", "vocab_size": 32000, "max_position_embeddings": 4096, "rms_norm_eps": 1e-05,
    "tie_word_embeddings": False, "torch_dtype": "float16",
}

_LLAMA2_NOTE = (
    "The published count includes one rotary_emb.inv_freq buffer of 64 float32 values per layer, "
    "which the July 2023 conversion saved into the safetensors files; it is not a trained parameter, "
    "so published_extra_elements = layers x 64."
)

_LLAMA3_SHARED = {
    "model_type": "llama", "vocab_size": 128256, "attention_bias": False, "tie_word_embeddings": False,
    "rms_norm_eps": 1e-05, "rope_theta": 500000.0, "torch_dtype": "bfloat16",
}

_LLAMA31_SHARED = {
    **_LLAMA3_SHARED, "mlp_bias": False, "max_position_embeddings": 131072,
    "rope_scaling": {"factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0,
                     "original_max_position_embeddings": 8192, "rope_type": "llama3"},
}

_LLAMA32_SHARED = {
    **_LLAMA31_SHARED, "tie_word_embeddings": True,
    "rope_scaling": {"factor": 32.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0,
                     "original_max_position_embeddings": 8192, "rope_type": "llama3"},
}

RECORDS: tuple[ModelRecord, ...] = (
    # ---- Llama 2 -------------------------------------------------------------------
    record(
        "llama-2-7b", "Llama 2 7B", "meta-llama/Llama-2-7b-hf", "llama",
        {**_LLAMA2_SHARED, "hidden_size": 4096, "num_hidden_layers": 32, "num_attention_heads": 32,
         "num_key_value_heads": 32, "intermediate_size": 11008},
        config_source("meta-llama/Llama-2-7b-hf", "verbatim copies in public GitHub repositories (Girafboy/pytorchKQI and others)"),
        Published(
            6738417664,
            hub_api_source("meta-llama/Llama-2-7b-hf", "01c7f73d771dfac7d292323805ebc428287df4f9", via=HELDOUT),
            extra=32 * 64),
        notes=(_LLAMA2_NOTE,
               "The safetensors index agrees: total_size 13,476,839,424 bytes = 2 x 6,738,415,616 "
               "float16 weights + 32 x 64 x 4 bytes of inv_freq."),
    ),
    record(
        "llama-2-13b", "Llama 2 13B", "meta-llama/Llama-2-13b-hf", "llama",
        {**_LLAMA2_SHARED, "hidden_size": 5120, "num_hidden_layers": 40, "num_attention_heads": 40,
         "num_key_value_heads": 40, "intermediate_size": 13824},
        config_source("meta-llama/Llama-2-13b-hf", "a verbatim copy in a public GitHub repository (Girafboy/pytorchKQI)"),
        Published(
            13015866880,
            hub_api_source("meta-llama/Llama-2-13b-hf", "5c31dfb671ce7cfe2d7bb7c04375e44c55e815b1", via=HELDOUT),
            extra=40 * 64),
        notes=(_LLAMA2_NOTE,),
    ),
    record(
        "llama-2-70b", "Llama 2 70B", "meta-llama/Llama-2-70b-hf", "llama",
        {**_LLAMA2_SHARED, "hidden_size": 8192, "num_hidden_layers": 80, "num_attention_heads": 64,
         "num_key_value_heads": 8, "intermediate_size": 28672},
        config_source("meta-llama/Llama-2-70b-hf", "verbatim copies in public GitHub repositories (Girafboy/pytorchKQI and others)"),
        Published(
            68976653312,
            hub_api_source("meta-llama/Llama-2-70b-hf", "3aba440b59558f995867ba6e1f58f21d0336b5bb", via=HELDOUT),
            extra=80 * 64),
        notes=(_LLAMA2_NOTE, "The only Llama 2 size with grouped-query attention (8 KV heads)."),
    ),
    # ---- Llama 3 / 3.1 / 3.2 -------------------------------------------------------------
    record(
        "llama-3-8b", "Llama 3 8B", "meta-llama/Meta-Llama-3-8B", "llama",
        {**_LLAMA3_SHARED, "hidden_size": 4096, "num_hidden_layers": 32, "num_attention_heads": 32,
         "num_key_value_heads": 8, "intermediate_size": 14336, "max_position_embeddings": 8192},
        config_source("meta-llama/Meta-Llama-3-8B", "a verbatim copy in a public GitHub repository (Girafboy/pytorchKQI)"),
        Published(
            8030261248,
            keras_source("llama3_8b_en", "llama3", sibling_of="meta-llama/Meta-Llama-3-8B")),
        notes=("The model.safetensors.index.json of this repository gives total_size 16,060,522,496 bytes "
               "= 2 x 8,030,261,248 bfloat16 values, the same figure.",),
    ),
    record(
        "llama-3-70b", "Llama 3 70B", "meta-llama/Meta-Llama-3-70B", "llama",
        {**_LLAMA3_SHARED, "hidden_size": 8192, "num_hidden_layers": 80, "num_attention_heads": 64,
         "num_key_value_heads": 8, "intermediate_size": 28672, "max_position_embeddings": 8192},
        config_source("meta-llama/Meta-Llama-3-70B", "copies of its shape keys in public GitHub repositories"),
        Published(
            70553706496,
            hub_api_source("NousResearch/Meta-Llama-3-70B", "main",
                           via=("the MODELS table of scripts/build_registry.py in github.com/debaditc/kvfit "
                                "(commit bd4ccabf914323ee9831bc4dfae6bff777aa7966)"),
                           sibling_of="meta-llama/Meta-Llama-3-70B")),
        notes=("The published figure is the hub total of NousResearch/Meta-Llama-3-70B, an ungated "
               "re-upload of the gated meta-llama/Meta-Llama-3-70B weights, as a third-party project "
               "recorded it; no figure read from the meta-llama repository itself was found.",
               "Llama 3.1 70B has the same tensor shapes and the same published count, 70,553,706,496, "
               "read from its own repository."),
    ),
    record(
        "llama-3.1-8b", "Llama 3.1 8B", "meta-llama/Llama-3.1-8B", "llama",
        {**_LLAMA31_SHARED, "hidden_size": 4096, "num_hidden_layers": 32, "num_attention_heads": 32,
         "num_key_value_heads": 8, "intermediate_size": 14336},
        config_source("meta-llama/Llama-3.1-8B", "copies in public GitHub repositories"),
        Published(
            8030261248,
            hub_api_source("meta-llama/Llama-3.1-8B", "d04e592bb4f6aa9cfee91e2e20afa771667e1d4b", via=HELDOUT)),
        notes=("Same weights layout as Llama 3 8B; the context grows to 128K through llama3 RoPE scaling.",),
    ),
    record(
        "llama-3.1-70b", "Llama 3.1 70B", "meta-llama/Llama-3.1-70B", "llama",
        {**_LLAMA31_SHARED, "hidden_size": 8192, "num_hidden_layers": 80, "num_attention_heads": 64,
         "num_key_value_heads": 8, "intermediate_size": 28672},
        config_source("meta-llama/Llama-3.1-70B", "copies in public GitHub repositories"),
        Published(
            70553706496,
            hub_api_source("meta-llama/Llama-3.1-70B", "349b2ddb53ce8f2849a6c168a81980ab25258dac", via=HELDOUT)),
        notes=("The repository's safetensors index gives total_size 141,107,412,992 bytes = 2 x the count.",),
    ),
    record(
        "llama-3.1-405b", "Llama 3.1 405B", "meta-llama/Llama-3.1-405B", "llama",
        {**_LLAMA31_SHARED, "hidden_size": 16384, "num_hidden_layers": 126, "num_attention_heads": 128,
         "num_key_value_heads": 8, "intermediate_size": 53248},
        config_source("meta-llama/Llama-3.1-405B", "copies of its shape keys in public GitHub repositories"),
        Published(
            405853388800,
            hub_api_source("meta-llama/Llama-3.1-405B", "b906e4dc842aa489c962f9db26554dcfdde901fe", via=HELDOUT)),
        notes=("128 query heads share 8 KV heads; the Hugging Face checkpoint is bfloat16 (Meta also "
               "ships FP8 and differently sharded original/ checkpoints, which this record does not describe).",),
    ),
    record(
        "llama-3.3-70b", "Llama 3.3 70B Instruct", "meta-llama/Llama-3.3-70B-Instruct", "llama",
        {"model_type": "llama", "hidden_size": 8192, "num_hidden_layers": 80, "num_attention_heads": 64,
         "num_key_value_heads": 8, "head_dim": 128, "intermediate_size": 28672, "vocab_size": 128256,
         "max_position_embeddings": 131072, "tie_word_embeddings": False},
        config_source("meta-llama/Llama-3.3-70B-Instruct", KVFIT_CONFIGS + ", read from the unsloth mirror",
                      as_of=READ_ON_2025_MODELS),
        Published(
            70553706496,
            hub_api_source("unsloth/Llama-3.3-70B-Instruct", "main", via=KVFIT_COUNTS,
                           sibling_of="meta-llama/Llama-3.3-70B-Instruct", as_of=READ_ON_2025_MODELS)),
        notes=("Meta released Llama 3.3 only as an instruction-tuned 70B; its tensor shapes are those of "
               "Llama 3.1 70B, and so is its published count (70,553,706,496).",
               "The published figure is the hub total of unsloth/Llama-3.3-70B-Instruct, an ungated copy of "
               "the gated meta-llama repository, as a third-party registry recorded it."),
    ),
    record(
        "llama-3.2-1b", "Llama 3.2 1B", "meta-llama/Llama-3.2-1B", "llama",
        {**_LLAMA32_SHARED, "hidden_size": 2048, "num_hidden_layers": 16, "num_attention_heads": 32,
         "num_key_value_heads": 8, "head_dim": 64, "intermediate_size": 8192},
        config_source("meta-llama/Llama-3.2-1B", "copies of its shape keys in public GitHub repositories"),
        Published(
            1235814400,
            Source(
                title=("Nikolić, Baluta & Saxena, 'Model Provenance Testing for Large Language Models' "
                       "(arXiv:2502.00706v2, NeurIPS 2025), Appendix Table 4 '# params' column, "
                       "row meta-llama/Llama-3.2-1B-Instruct (the Instruct checkpoint has the same tensor shapes)"),
                url="https://arxiv.org/abs/2502.00706",
                as_of=READ_ON,
                kind="spec",
            )),
        notes=("Ties the output head to the embedding, so the 128,256 x 2048 matrix is stored once.",
               "The published figure is for the Instruct checkpoint, which shares the base model's shapes; "
               "no exact count read from the meta-llama/Llama-3.2-1B repository itself was found.",
               "KerasHub's llama3.2_1b preset lists 1,498,482,688 = 1,235,814,400 + 262,668,288: it counts "
               "exactly one more 128,256 x 2048 matrix (an untied output head), so it is not used here."),
    ),
    record(
        "llama-3.2-3b", "Llama 3.2 3B", "meta-llama/Llama-3.2-3B", "llama",
        {**_LLAMA32_SHARED, "hidden_size": 3072, "num_hidden_layers": 28, "num_attention_heads": 24,
         "num_key_value_heads": 8, "head_dim": 128, "intermediate_size": 8192},
        config_source("meta-llama/Llama-3.2-3B", "copies of its shape keys in public GitHub repositories"),
        Published(
            3212749824,
            hub_api_source("meta-llama/Llama-3.2-3B", "13afe5124825b4f3751f836b40dafda64c1ed062",
                           via=("the saved hub response apiRepoLlama3_2Data in huggingface_test.go of "
                                "github.com/maruel/huggingface (commit 84f7837283346204fa9da7d1b08b0b5b64510589)"))),
        notes=("Ties the output head to the embedding.",
               "arXiv:2502.00706 (Table 4) gives the same 3,212,749,824 for meta-llama/Llama-3.2-3B-Instruct.",
               "KerasHub's llama3.2_3b preset lists 3,606,752,256 = 3,212,749,824 + 394,002,432: it counts "
               "exactly one more 128,256 x 3072 matrix (an untied output head), so it is not used here."),
    ),
    # ---- Yi --------------------------------------------------------------------------
    record(
        "yi-34b", "Yi 34B", "01-ai/Yi-34B", "yi",
        {"model_type": "llama", "hidden_size": 7168, "num_hidden_layers": 60, "num_attention_heads": 56,
         "num_key_value_heads": 8, "intermediate_size": 20480, "vocab_size": 64000,
         "max_position_embeddings": 4096, "rope_theta": 5000000.0, "rms_norm_eps": 1e-05,
         "tie_word_embeddings": False, "torch_dtype": "bfloat16"},
        config_source("01-ai/Yi-34B", "copies of its shape keys in public GitHub repositories "
                       "(Yi-1.5-34B, read verbatim, has the same shapes)"),
        notes=("A Llama-architecture model; 56 query heads share 8 KV heads.",
               "No exact count for this repository was found in a source that can be cited: the Open LLM "
               "Leaderboard request file for 01-ai/Yi-34B gives only a rounded 34.389 (billions), and the "
               "exact figures seen (34,388,917,248 for Yi-34B-Chat, Yi-34B-200K and Yi-1.5-34B) came from "
               "sources whose repository could not be identified."),
    ),
)
