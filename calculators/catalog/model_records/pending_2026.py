"""Catalog records (pending): families other engineers' readers are adding (read on 2026-11-29).

OLMo 2 13B and OLMo 3 7B / 32B (``olmo2``, ``olmo3``: post-norm layers, q/k RMSNorms over all
heads, OLMo 3's sliding-window layers), OLMoE-1B-7B (``olmoe``), Granite 4.0 350M / 1B / Micro
(``granitemoehybrid`` with attention layers only), GLM-4.7 (``glm4_moe``) and MiniMax-M2 / M2.1
(``minimax_m2``). Not registered: :mod:`calculators.model_config` does not read these
``model_type`` values yet. Every published total here equals transformers 5.23's meta-device
count plus the documented extras (``tests/catalog/test_model_catalog_2026.py`` checks it).
"""

from __future__ import annotations

from typing import Any

from calculators.catalog.model_record import (
    AUDIT_TABLE,
    HELDOUT,
    MOE_JOURNAL,
    READ_ON_2026_MORE,
    TRANSFORMERS_DEFAULTS,
    ModelRecord,
    Published,
    config_source,
    hub_api_source,
    record,
    thaw,
)
from calculators.catalog.model_records import glm, moe_2026
from calculators.catalog.model_records.glm import _GLM_NOTE, _MTP_NOTE, GLM45_MTP
from calculators.catalog.sources import Source

_D = READ_ON_2026_MORE

_OLMO_NOTE = (
    "OLMo 2 and 3 normalise after attention and after the MLP (post-norm) and apply an RMSNorm over the whole q "
    "and k projections (one weight per q and k channel); no biases, untied head."
)
_OLMO3_NOTE = (
    "OLMo 3 keeps OLMo 2's layer and adds sliding-window attention (window 4,096) on three layers of every four "
    "(layer_types, Olmo3Config's default pattern); the fourth layer attends to the whole context."
)
_OLMO3_VOCAB = (
    "vocab_size 100,278 is derived, not read: both OLMo 3 totals below need exactly 100,278 rows of embedding and "
    "head (OLMo 2's 100,352 would add 2 x 74 x hidden), the dolma2 tokenizer without OLMo 2's padding."
)


def _olmo3_count_source(repo: str, what: str) -> Source:
    return Source(
        title=f"The element count of {repo}, {what}",
        url=f"https://huggingface.co/{repo}",
        as_of=_D,
        kind="spec",
    )


_GRANITE_SOURCE = (
    "the 'full-size configs (real HF dimensions)' table GRANITE4_FULLSIZE of a Granite-4 test suite in a public "
    "GitHub repository (hidden, layers, heads, KV heads, intermediate and shared_intermediate_size, no experts, "
    "attention-only layer_types, rope, vocab_size 100,352, context 131,072); tie_word_embeddings true is what the "
    "exact hub total requires (an untied head would add 100,352 x hidden)"
)
_GRANITE_NOTE = (
    "A Granite 4.0 dense model in the granitemoehybrid layout: every layer attention (layer_types all "
    "'attention', RoPE), no routed experts (num_local_experts 0) and a gated 'shared' MLP of "
    "shared_intermediate_size; tied head. Granite's multipliers (embedding, residual, attention, logits) scale "
    "activations only."
)


def _granite(size: str, name: str, hidden: int, layers: int, heads: int, kv: int, width: int,
             published: int) -> ModelRecord:
    repo = f"ibm-granite/granite-4.0-{size}"
    config = {
        "model_type": "granitemoehybrid", "hidden_size": hidden, "num_hidden_layers": layers,
        "num_attention_heads": heads, "num_key_value_heads": kv, "intermediate_size": width,
        "shared_intermediate_size": width, "num_local_experts": 0, "num_experts_per_tok": 0,
        "layer_types": ["attention"] * layers, "position_embedding_type": "rope", "vocab_size": 100352,
        "max_position_embeddings": 131072, "attention_bias": False, "mlp_bias": False, "tie_word_embeddings": True,
    }
    return record(
        f"granite-4.0-{size}", f"Granite 4.0 {name}", repo, "granite", config,
        config_source(repo, _GRANITE_SOURCE, as_of=_D),
        Published(
            published,
            hub_api_source(repo, "main", via=AUDIT_TABLE, as_of=_D)),
        notes=(_GRANITE_NOTE,),
    )


def _sibling(rid: str, records: tuple[ModelRecord, ...]) -> dict[str, Any]:
    return dict(thaw(next(r for r in records if r.id == rid).config))


RECORDS: tuple[ModelRecord, ...] = (
    # ---- OLMo 2 / OLMo 3 ------------------------------------------------------------------------
    record(
        "olmo-2-13b", "OLMo 2 13B", "allenai/OLMo-2-1124-13B", "olmo",
        {"model_type": "olmo2", "hidden_size": 5120, "num_hidden_layers": 40, "num_attention_heads": 40,
         "num_key_value_heads": 40, "intermediate_size": 13824, "vocab_size": 100352, "attention_bias": False,
         "tie_word_embeddings": False},
        config_source("allenai/OLMo-2-1124-13B", "the shape defaults (vocab_size 100,352, hidden 5120, MLP 13,824, "
                      "40 layers, 40 heads, 40 KV heads, untied) of an Olmo2Config written for this model in "
                      "jola/jola/configuration_olmo2.py of github.com/sp-embraceableai/Jola_Train_Pipeline; the exact "
                      "hub total confirms them", as_of=_D),
        Published(
            13716198400,
            hub_api_source("allenai/OLMo-2-1124-13B", "3fefddc1bf18a30e1d9b91000271630718f2aa8b", via=HELDOUT,
                           as_of=_D)),
        notes=(_OLMO_NOTE, "Full multi-head attention: 40 KV heads of 128."),
    ),
    record(
        "olmo-3-7b", "OLMo 3 7B", "allenai/Olmo-3-1025-7B", "olmo",
        {"model_type": "olmo3", "hidden_size": 4096, "num_hidden_layers": 32, "num_attention_heads": 32,
         "num_key_value_heads": 32, "intermediate_size": 11008, "vocab_size": 100278, "sliding_window": 4096,
         "attention_bias": False, "tie_word_embeddings": False},
        config_source("allenai/Olmo-3-1025-7B", TRANSFORMERS_DEFAULTS.format("Olmo3Config", "olmo3")
                      + " (its docstring names allenai/Olmo-3-7B-Instruct, this model's instruction tune), except "
                      "vocab_size (see the notes); the exact count confirms every shape", as_of=_D),
        Published(
            7298011136,
            _olmo3_count_source("allenai/Olmo-3-1025-7B", "7,298,011,136, as public GitHub repositories record it: an "
                                "OpenEuroLLM SFT-throughput script ('MFUCallback log: num_params=7298011136'), a "
                                "safetensors checker that requires the tensors to sum to 7,298,011,136, and a research "
                                "script that sizes the olmo3-7b checkpoint with it")),
        notes=(_OLMO_NOTE, _OLMO3_NOTE, _OLMO3_VOCAB, "Full multi-head attention: 32 KV heads of 128."),
    ),
    record(
        "olmo-3-32b", "OLMo 3 32B", "allenai/Olmo-3-1125-32B", "olmo",
        {"model_type": "olmo3", "hidden_size": 5120, "num_hidden_layers": 64, "num_attention_heads": 40,
         "num_key_value_heads": 8, "intermediate_size": 27648, "vocab_size": 100278, "sliding_window": 4096,
         "attention_bias": False, "tie_word_embeddings": False},
        config_source("allenai/Olmo-3-1125-32B", "the OLMo 32B shapes (hidden 5120, MLP 27,648, 40 query heads, 8 KV "
                      "heads, 64 layers) written in experiments/qwen3.py of github.com/marin-community/marin ('same "
                      "as olmo 32b'); vocab_size: see the notes; the exact count confirms every shape", as_of=_D),
        Published(
            32233522176,
            _olmo3_count_source("allenai/Olmo-3-1125-32B", "32,233,522,176, as a research script in a public GitHub "
                                "repository records it for the olmo3-32b checkpoint")),
        notes=(_OLMO_NOTE, _OLMO3_NOTE, _OLMO3_VOCAB, "Grouped-query attention: 40 query heads share 8 KV heads."),
    ),
    record(
        "olmoe-1b-7b", "OLMoE 1B-7B Instruct", "allenai/OLMoE-1B-7B-0924-Instruct", "olmo",
        {"model_type": "olmoe", "hidden_size": 2048, "num_hidden_layers": 16, "num_attention_heads": 16,
         "num_key_value_heads": 16, "intermediate_size": 1024, "num_experts": 64, "num_experts_per_tok": 8,
         "norm_topk_prob": False, "clip_qkv": None, "vocab_size": 50304, "max_position_embeddings": 4096,
         "attention_bias": False, "tie_word_embeddings": False},
        config_source("allenai/OLMoE-1B-7B-0924-Instruct", TRANSFORMERS_DEFAULTS.format("OlmoeConfig", "olmoe")
                      + " (its docstring names allenai/OLMoE-1B-7B-0924), except the experts' width "
                      "intermediate_size: 1024, not the default 2048, the only width with which the shapes give the "
                      "published total (16 layers x 64 experts x 3 x 2048 x width)", as_of=_D),
        Published(
            6919161856,
            hub_api_source("allenai/OLMoE-1B-7B-0924-Instruct", "7f1c97f440f06ce36705e4f2b843edb5925f4498",
                           via=("the PARAMETERS constant of a pinned OLMoE pilot script in a public GitHub repository "
                                "(MODEL allenai/OLMoE-1B-7B-0924-Instruct at that REVISION), which other public "
                                "repositories confirm (a safetensors header check: 3,219 tensors, 6,919,161,856 "
                                "parameters; llama.cpp's model_n_params)"), as_of=_D)),
        notes=("Every one of the 16 layers is MoE: 64 SwiGLU experts of width 1024, 8 per token, softmax router "
               "without renormalising the top 8; q/k RMSNorms over all heads; 50,304-token vocabulary, untied "
               "head. About 1.3B parameters are active per token (AI2's rounded figure).",),
    ),
    # ---- Granite 4.0 dense ------------------------------------------------------------------------
    _granite("350m", "350M", 1024, 28, 16, 4, 2048, 352379904),
    _granite("1b", "1B", 2048, 40, 16, 4, 4096, 1631750144),
    _granite("micro", "Micro", 2560, 40, 40, 8, 8192, 3402836480),
    # ---- GLM-4.7, MiniMax-M2 / M2.1 -----------------------------------------------------------
    record(
        "glm-4.7", "GLM-4.7", "zai-org/GLM-4.7", "glm",
        {k: v for k, v in _sibling("glm-4.5", glm.RECORDS).items() if k != "max_position_embeddings"},
        config_source("zai-org/GLM-4.7", "the shape keys of the catalog's glm-4.5 record: GLM-4.7 keeps the "
                      "GLM-4.5 architecture, and the hub total is GLM-4.5's element for element", as_of=_D),
        Published(
            358337791296,
            hub_api_source("zai-org/GLM-4.7", "main", via=MOE_JOURNAL, as_of=_D), extra=GLM45_MTP),
        notes=(_GLM_NOTE, _MTP_NOTE,
               "Its MTP layer stores its own embedding and head copies, as GLM-4.5's does (GLM-4.6's does not).",
               "The context length (max_position_embeddings) was not read for this repository: left out."),
    ),
    *(record(
        f"minimax-{version.lower()}", f"MiniMax-{version}", f"MiniMaxAI/MiniMax-{version}", "minimax",
        _sibling("minimax-m2.7", moe_2026.RECORDS),
        config_source(f"MiniMaxAI/MiniMax-{version}", "the shape keys of the catalog's minimax-m2.7 record: "
                      f"MiniMax-{version} and M2.7 share the architecture, and the hub reports the same total for "
                      "both", as_of=_D),
        Published(
            228689764864,
            hub_api_source(f"MiniMaxAI/MiniMax-{version}", "main", via=MOE_JOURNAL, as_of=_D)),
        notes=("62 layers of GQA attention (48 query heads, 8 KV heads of 128, q/k RMSNorms over all heads, RoPE on 64 "
               "of 128 dimensions) and a MoE of 256 experts of width 1536, 8 per token, sigmoid router with a "
               "routing bias.",
               "As for M2.7, the hub total equals what transformers builds plus the routers' biases (stored, "
               "counted here as parameters)."),
    ) for version in ("M2", "M2.1")),
)
