"""Catalog records: releases people run that reuse an architecture the catalog already has.

Updates and fine-tunes whose tensors have the shapes of a catalogued model (the Qwen3 2507
updates, DeepSeek V3-0324 / V3.1 / V3.1-Terminus / R1-0528, Gemma 3 1B IT, Phi-4-mini-reasoning,
Magistral Small 2507), plus Mixtral 8x22B and two DeepSeek-R1 distills. Each config is the
sibling's (named in the source) or a copy read for the model itself; each published total is
the model's own hub figure, which the tests compare with ModelSpec.
"""

from __future__ import annotations

from typing import Any

from calculators.catalog.model_record import (
    AIC_CONFIGS,
    AUDIT_TABLE,
    MOE_JOURNAL,
    READ_ON_2026_MORE,
    ModelRecord,
    Published,
    config_source,
    hub_api_source,
    keras_source,
    record,
    thaw,
)
from calculators.catalog.model_records import deepseek, gemma, more_2026, qwen, qwen_2026
from calculators.catalog.model_records.deepseek import _DEEPSEEK_EXTRA_NOTE
from calculators.catalog.sources import Source

_D = READ_ON_2026_MORE
_SIBLINGS = {r.id: r for r in qwen.RECORDS + qwen_2026.RECORDS + gemma.RECORDS + more_2026.RECORDS + deepseek.RECORDS}


def _config_of(rid: str, **changes: Any) -> dict[str, Any]:
    """The config values of the catalogued record ``rid`` (a plain copy), with ``changes`` applied."""
    return {**thaw(_SIBLINGS[rid].config), **changes}


def _sibling_source(repo: str, rid: str, why: str) -> Source:
    return config_source(repo, f"the shape keys of the catalog's {rid} record ({why})", as_of=_D)


_SAME_TENSORS = "the same tensors as {}: the hub reports the same element count for both repositories"
_DEEPSEEK_V3_SHAPES = {
    k: v for k, v in thaw(deepseek.RECORDS[0].config).items() if k not in ("quantization_config", "torch_dtype")
}
_DEEPSEEK_V31_SOURCE = (
    AIC_CONFIGS.format("nvidia--DeepSeek-V3.1-NVFP4") + " (NVIDIA's NVFP4 quantization of deepseek-ai/DeepSeek-V3.1, "
    "whose config.json keeps the model's architecture keys; they equal DeepSeek-V3's, as the hub total does)"
)


def _deepseek(rid: str, name: str, repo: str, source: Source, note: str) -> ModelRecord:
    return record(
        rid, name, repo, "deepseek", _DEEPSEEK_V3_SHAPES, source,
        Published(
            684531386000,
            hub_api_source(repo, "main", via=MOE_JOURNAL, as_of=_D), extra=13463426304 + 41540496),
        notes=(note, _DEEPSEEK_EXTRA_NOTE,
               "DeepSeek gives 671B total and 37B activated parameters (rounded), as for V3."),
    )


def _qwen3_moe_update(size: str, kind: str, sibling: str, *, name_size: str) -> ModelRecord:
    repo = f"Qwen/Qwen3-{size}-{kind}-2507"
    return record(
        f"qwen3-{size.lower()}-{kind.lower()}-2507", f"Qwen3 {name_size} {kind} 2507", repo, "qwen3",
        _config_of(sibling), _sibling_source(repo, sibling, _SAME_TENSORS.format(f"Qwen/Qwen3-{size}")),
        Published(
            _SIBLINGS[sibling].published_parameters,
            hub_api_source(repo, "main", via=MOE_JOURNAL, as_of=_D)),
        notes=(f"The July 2025 {'reasoning' if kind == 'Thinking' else 'non-reasoning'} update of Qwen3-{size}: "
               "the same tensors; Qwen raised the native context to 262,144 tokens (max_position_embeddings, not read "
               "for this repository, is left as the sibling's: it changes no tensor shape).",),
    )


RECORDS: tuple[ModelRecord, ...] = (
    # ---- Qwen3 2507 updates -------------------------------------------------------------------
    record(
        "qwen3-4b-instruct-2507", "Qwen3 4B Instruct 2507", "Qwen/Qwen3-4B-Instruct-2507", "qwen3",
        _config_of("qwen3-4b"),
        _sibling_source("Qwen/Qwen3-4B-Instruct-2507", "qwen3-4b", _SAME_TENSORS.format("Qwen/Qwen3-4B")),
        Published(
            4022468096,
            hub_api_source("Qwen/Qwen3-4B-Instruct-2507", "main", via=AUDIT_TABLE, as_of=_D)),
        notes=("The July 2025 non-reasoning update of Qwen3-4B: tied head, 36 layers, GQA 32/8 heads of 128.",),
    ),
    _qwen3_moe_update("30B-A3B", "Instruct", "qwen3-30b-a3b", name_size="30B-A3B"),
    _qwen3_moe_update("30B-A3B", "Thinking", "qwen3-30b-a3b", name_size="30B-A3B"),
    record(
        "qwen3-235b-a22b-thinking-2507", "Qwen3 235B-A22B Thinking 2507", "Qwen/Qwen3-235B-A22B-Thinking-2507",
        "qwen3",
        _config_of("qwen3-235b-a22b-instruct-2507"),
        _sibling_source("Qwen/Qwen3-235B-A22B-Thinking-2507", "qwen3-235b-a22b-instruct-2507",
                        _SAME_TENSORS.format("Qwen/Qwen3-235B-A22B-Instruct-2507")),
        Published(
            235093634560,
            hub_api_source("Qwen/Qwen3-235B-A22B-Thinking-2507", "main", via=MOE_JOURNAL, as_of=_D)),
        notes=("The July 2025 reasoning update of Qwen3-235B-A22B: 94 MoE layers of 128 experts (8 per token), "
               "context 262,144 tokens. Reasoning traces make long outputs the norm: size the KV cache for them.",),
    ),
    # ---- DeepSeek V3 line -----------------------------------------------------------------------
    _deepseek("deepseek-v3-0324", "DeepSeek-V3-0324", "deepseek-ai/DeepSeek-V3-0324",
              _sibling_source("deepseek-ai/DeepSeek-V3-0324", "deepseek-v3", _SAME_TENSORS.format(
                  "deepseek-ai/DeepSeek-V3")),
              "The March 2025 post-training update of DeepSeek-V3: the same FP8 checkpoint layout."),
    _deepseek("deepseek-v3.1", "DeepSeek-V3.1", "deepseek-ai/DeepSeek-V3.1",
              config_source("deepseek-ai/DeepSeek-V3.1", _DEEPSEEK_V31_SOURCE, as_of=_D),
              "DeepSeek-V3.1 (August 2025) is DeepSeek-V3 continued for long context, with thinking and "
              "non-thinking modes in one checkpoint: the same architecture and element count."),
    _deepseek("deepseek-v3.1-terminus", "DeepSeek-V3.1-Terminus", "deepseek-ai/DeepSeek-V3.1-Terminus",
              config_source("deepseek-ai/DeepSeek-V3.1-Terminus", _DEEPSEEK_V31_SOURCE + "; Terminus is its "
                            "September 2025 update, with the same hub total", as_of=_D),
              "The September 2025 update of DeepSeek-V3.1: the same tensors."),
    _deepseek("deepseek-r1-0528", "DeepSeek-R1-0528", "deepseek-ai/DeepSeek-R1-0528",
              _sibling_source("deepseek-ai/DeepSeek-R1-0528", "deepseek-r1", _SAME_TENSORS.format(
                  "deepseek-ai/DeepSeek-R1")),
              "The May 2025 update of DeepSeek-R1: the same tensors, longer reasoning traces."),
    # ---- small models -------------------------------------------------------------------------
    record(
        "gemma-3-1b-it", "Gemma 3 1B IT", "google/gemma-3-1b-it", "gemma",
        _config_of("gemma-3-1b"),
        _sibling_source("google/gemma-3-1b-it", "gemma-3-1b", "whose values are read from copies of this "
                        "repository's config.json"),
        Published(
            999885952,
            hub_api_source("google/gemma-3-1b-it", "main", via=AUDIT_TABLE, as_of=_D)),
        notes=("The instruction-tuned Gemma 3 1B: text only, 22 local (512-token window) and 4 global layers, tied "
               "262,144-row embedding.",
               "KerasHub's gemma3_instruct_1b preset gives the same 999,885,952."),
    ),
    record(
        "phi-4-mini-reasoning", "Phi-4-mini-reasoning", "microsoft/Phi-4-mini-reasoning", "phi",
        _config_of("phi-4-mini"),
        _sibling_source("microsoft/Phi-4-mini-reasoning", "phi-4-mini",
                        _SAME_TENSORS.format("microsoft/Phi-4-mini-instruct")),
        Published(
            3836021760,
            hub_api_source("microsoft/Phi-4-mini-reasoning", "main", via=AUDIT_TABLE, as_of=_D)),
        notes=("Microsoft's math-reasoning fine-tune of Phi-4-mini: Phi-3 layout (fused qkv and gate/up "
               "projections), GQA 24/8, tied 200,064-row embedding.",),
    ),
    record(
        "magistral-small-2507", "Magistral Small 2507", "mistralai/Magistral-Small-2507", "mistral",
        _config_of("magistral-small-2506"),
        _sibling_source("mistralai/Magistral-Small-2507", "magistral-small-2506",
                        "the July 2025 update of Magistral Small 2506; KerasHub gives both the same exact count"),
        Published(
            23572403200,
            keras_source("magistral_small_2507_en", "mistral", sibling_of="mistralai/Magistral-Small-2507", as_of=_D)),
        notes=("A text-only MistralForCausalLM reasoning model: the Mistral Small 3.1 language model (40 layers of "
               "5120, GQA 32/8 heads of 128, untied 131,072-row head) without the vision encoder.",),
    ),
    # ---- Mixtral 8x22B ------------------------------------------------------------------------
    record(
        "mixtral-8x22b", "Mixtral 8x22B", "mistralai/Mixtral-8x22B-v0.1", "mixtral",
        {"model_type": "mixtral", "hidden_size": 6144, "num_hidden_layers": 56, "num_attention_heads": 48,
         "num_key_value_heads": 8, "intermediate_size": 16384, "num_local_experts": 8, "num_experts_per_tok": 2,
         "vocab_size": 32000, "max_position_embeddings": 65536, "rope_theta": 1000000, "sliding_window": None,
         "rms_norm_eps": 1e-05, "tie_word_embeddings": False, "torch_dtype": "bfloat16"},
        config_source("mistralai/Mixtral-8x22B-v0.1", AIC_CONFIGS.format("mistralai--Mixtral-8x22B-v0.1"), as_of=_D),
        Published(
            140620634112,
            hub_api_source("mistral-community/Mixtral-8x22B-v0.1", "main", via=MOE_JOURNAL,
                           sibling_of="mistralai/Mixtral-8x22B-v0.1", as_of=_D)),
        notes=("56 layers, each a GQA attention block (48 query heads, 8 KV heads of 128) and a MoE of 8 SwiGLU "
               "experts of width 16,384, 2 per token; no sliding window; 32,000-token vocabulary, untied head.",
               "Mistral: 141B total, 39B active (rounded), which the tests check. The figure is the hub total of "
               "the community repository that holds the transformers-format weights of Mistral's release."),
    ),
    # ---- DeepSeek-R1 distills -----------------------------------------------------------------
    record(
        "deepseek-r1-distill-qwen-1.5b", "DeepSeek-R1-Distill-Qwen 1.5B", "deepseek-ai/DeepSeek-R1-Distill-Qwen-1.5B",
        "qwen2.5",
        {"model_type": "qwen2", "hidden_size": 1536, "num_hidden_layers": 28, "num_attention_heads": 12,
         "num_key_value_heads": 2, "intermediate_size": 8960, "vocab_size": 151936, "max_position_embeddings": 131072,
         "max_window_layers": 21, "rope_theta": 10000, "sliding_window": None, "use_sliding_window": False,
         "rms_norm_eps": 1e-06, "tie_word_embeddings": False, "torch_dtype": "bfloat16"},
        config_source("deepseek-ai/DeepSeek-R1-Distill-Qwen-1.5B", "a verbatim Qwen2Config printout of this "
                      "repository (\"_name_or_path\": \"deepseek-ai/DeepSeek-R1-Distill-Qwen-1.5B\") in the docstring "
                      "of a model-size helper in public GitHub repositories", as_of=_D),
        Published(
            1777088000,
            Source(
                title=("The repository's element count, 1,777,088,000 in 339 tensors, as recorded in public GitHub "
                       "repositories: an evidence test that pins this repository's revision, a pruning script's "
                       "original_param_num for model_path deepseek-ai/DeepSeek-R1-Distill-Qwen-1.5B, and llama.cpp's "
                       "model_n_params for its GGUF conversion"),
                url="https://huggingface.co/api/models/deepseek-ai/DeepSeek-R1-Distill-Qwen-1.5B",
                as_of=_D,
                kind="spec",
            )),
        notes=("DeepSeek distilled R1's reasoning into Qwen2.5-Math-1.5B. Unlike its base, whose head is tied "
               "(1,543,714,304 elements), the distill stores an untied 151,936 x 1536 head: 233,373,696 more.",
               "A Qwen2 decoder: q/k/v biases, GQA 12/2 heads of 128."),
    ),
    record(
        "deepseek-r1-distill-qwen-7b", "DeepSeek-R1-Distill-Qwen 7B", "deepseek-ai/DeepSeek-R1-Distill-Qwen-7B",
        "qwen2.5",
        {"model_type": "qwen2", "hidden_size": 3584, "num_hidden_layers": 28, "num_attention_heads": 28,
         "num_key_value_heads": 4, "intermediate_size": 18944, "vocab_size": 152064, "max_position_embeddings": 131072,
         "max_window_layers": 28, "rope_theta": 10000, "sliding_window": None, "use_sliding_window": False,
         "rms_norm_eps": 1e-06, "tie_word_embeddings": False},
        config_source("deepseek-ai/DeepSeek-R1-Distill-Qwen-7B", "a pruning log in a public GitHub repository that "
                      "prints this repository's model before pruning (embed 152,064 x 3584, 28 layers, q 3584 -> 3584, "
                      "k/v 3584 -> 512 with biases, MLP 18,944, an untied lm_head) and its Qwen2Config "
                      "(\"_name_or_path\": \"deepseek-ai/DeepSeek-R1-Distill-Qwen-7B\": 28 layers, 4 KV heads, vocab "
                      "152,064, context 131,072, rope_theta 10,000, tie_word_embeddings false)", as_of=_D),
        notes=("DeepSeek distilled R1's reasoning into Qwen2.5-Math-7B: Qwen2 layout with q/k/v biases, GQA 28/4 "
               "heads of 128, untied head.",
               "No exact published count was found for this repository; DeepSeek names it 7B, which the tests check "
               "(its base Qwen2.5-Math-7B has the same shapes and KerasHub's exact 7,615,616,512)."),
    ),
)
