"""Catalog of open-weight language models: their ``config.json`` shapes and published sizes.

Each :class:`ModelRecord` keeps the ``config.json`` keys that decide memory and compute
(copied from the official Hugging Face repository), the address it came from, and, where
one exists, an exact parameter count that someone other than this package published:
the Hugging Face model API's ``safetensors.total``, a safetensors index's
``metadata.total_size`` (bytes, halved for a 16-bit checkpoint), or a framework's
preset metadata. The tests check :attr:`ModelSpec.parameters
<calculators.model.ModelSpec.parameters>` against every published figure.

A published count is the number of elements stored in the checkpoint, which is not
always the number of model parameters. Two cases in this catalog differ, and each record
says by how much in :attr:`ModelRecord.published_extra_elements`:

* the Llama 2 checkpoints store a 64-wide ``rotary_emb.inv_freq`` buffer per layer;
* DeepSeek-V3's hub total includes its multi-token-prediction module and the FP32
  block scales of its FP8 weights.

>>> record = get_model_record("Llama 3 8B")
>>> record.id, record.hf_repo
('llama-3-8b', 'meta-llama/Meta-Llama-3-8B')
>>> get_model("qwen2.5-0.5b").parameters
494032768
>>> get_model_record("Qwen/Qwen2.5-0.5B").published_parameters
494032768
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from calculators.catalog.sources import Source
from calculators.errors import UnknownNameError
from calculators.model import ModelSpec

#: The day the configs and counts below were read.
READ_ON = "2026-11-21"

_HUB = "https://huggingface.co"


@dataclass(frozen=True)
class ModelRecord:
    """One catalogued model: its config values, where they came from, and its published size.

    Attributes:
        id: Short lowercase key, e.g. ``"llama-3-8b"``.
        name: Display name, e.g. ``"Llama 3 8B"``.
        hf_repo: The official Hugging Face repository, ``owner/name``.
        family: Model family, e.g. ``"llama"``, ``"qwen2.5"``.
        config: The ``config.json`` values that matter for sizing (read-only).
        source: Where the config values come from (the repository's ``config.json``).
        published_parameters: An exact element count published for the checkpoint, or
            ``None`` where no exact figure was found.
        published_parameters_source: Where :attr:`published_parameters` comes from.
        published_extra_elements: How many of the published elements are not parameters
            of the model as :class:`~calculators.model.ModelSpec` counts it (buffers,
            quantisation scales, auxiliary modules); :attr:`notes` explain the figure.
        published_active_parameters: An exact per-token (active) count, for a
            mixture-of-experts model whose publisher gives one.
        notes: Caveats a reader should know before trusting the numbers.
    """

    id: str
    name: str
    hf_repo: str
    family: str
    config: Mapping[str, Any]
    source: Source
    published_parameters: int | None = None
    published_parameters_source: Source | None = None
    published_extra_elements: int = 0
    published_active_parameters: int | None = None
    notes: tuple[str, ...] = ()

    def spec(self) -> ModelSpec:
        """Parse :attr:`config` into a :class:`~calculators.model.ModelSpec`.

        Returns:
            The model's shapes and exact parameter counts.

        Example:
            >>> get_model_record("mixtral-8x7b").spec().moe.num_experts
            8
        """
        return ModelSpec.from_config(_thaw(self.config), name=self.name)


# --------------------------------------------------------------------------- helpers
def _freeze(value: Any) -> Any:
    """Deep read-only copy: dicts become mapping proxies, lists become tuples."""
    if isinstance(value, Mapping):
        return MappingProxyType({str(k): _freeze(v) for k, v in value.items()})
    if isinstance(value, (list, tuple)):
        return tuple(_freeze(v) for v in value)
    return value


def _thaw(value: Any) -> Any:
    """Plain ``dict``/``list`` copy of a frozen config, as ``json.load`` would give it."""
    if isinstance(value, Mapping):
        return {k: _thaw(v) for k, v in value.items()}
    if isinstance(value, tuple):
        return [_thaw(v) for v in value]
    return value


def _config_source(repo: str, read_from: str = "") -> Source:
    where = f"; values read from {read_from}" if read_from else ""
    return Source(
        title=f"{repo} config.json on the Hugging Face Hub{where}",
        url=f"{_HUB}/{repo}/blob/main/config.json",
        as_of=READ_ON,
        kind="spec",
    )


def _hf_api_source(repo: str, revision: str, *, via: str, sibling_of: str = "") -> Source:
    sibling = f" (the {sibling_of} checkpoint has the same tensor shapes)" if sibling_of else ""
    return Source(
        title=(f"Hugging Face model API, {repo} safetensors.total at revision {revision}{sibling}; "
               f"value as recorded in {via}"),
        url=f"{_HUB}/api/models/{repo}",
        as_of=READ_ON,
        kind="spec",
    )


def _keras_source(preset: str, model_dir: str, *, sibling_of: str = "") -> Source:
    sibling = f" (a port of {sibling_of}, same tensor shapes)" if sibling_of else ""
    return Source(
        title=f"KerasHub preset metadata, {preset} 'params'{sibling}",
        url=f"https://github.com/keras-team/keras-hub/blob/master/keras_hub/src/models/{model_dir}/{model_dir}_presets.py",
        as_of=READ_ON,
        kind="spec",
    )


_ATLAS = "the saved hub response test/fixtures/hf/{} in github.com/zaid-cdlg/inference-atlas"
_HELDOUT = "a study dataset script in a public GitHub repository that lists hub API values read on 2026-10-01"

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
_QWEN25_SHARED = {
    "model_type": "qwen2", "rope_theta": 1000000.0, "use_sliding_window": False, "torch_dtype": "bfloat16",
}
_QWEN_VOCAB_NOTE = (
    "vocab_size in config.json ({}) is the padded embedding size, larger than the tokenizer's "
    "151,665 tokens; the checkpoint stores the padded rows, so counts use the config value."
)
_GEMMA2_SHARED = {
    "model_type": "gemma2", "vocab_size": 256000, "max_position_embeddings": 8192, "rope_theta": 10000.0,
    "sliding_window": 4096, "attention_bias": False, "attn_logit_softcapping": 50.0,
    "final_logit_softcapping": 30.0, "rms_norm_eps": 1e-06, "hidden_activation": "gelu_pytorch_tanh",
}
_GEMMA2_NOTE = (
    "Gemma 2 alternates sliding-window (4096) and global attention layer by layer, ties the "
    "output head to the embedding, and has four RMSNorms per layer."
)


def _record(
    id: str, name: str, repo: str, family: str, config: Mapping[str, Any], source: Source,
    published: int | None = None, published_source: Source | None = None, *,
    extra: int = 0, active: int | None = None, notes: tuple[str, ...] = (),
) -> ModelRecord:
    return ModelRecord(
        id=id, name=name, hf_repo=repo, family=family, config=_freeze(config), source=source,
        published_parameters=published, published_parameters_source=published_source,
        published_extra_elements=extra, published_active_parameters=active, notes=notes,
    )


# --------------------------------------------------------------------------- the catalog
_RECORDS: tuple[ModelRecord, ...] = (
    # ---- Llama 2 -------------------------------------------------------------------
    _record(
        "llama-2-7b", "Llama 2 7B", "meta-llama/Llama-2-7b-hf", "llama",
        {**_LLAMA2_SHARED, "hidden_size": 4096, "num_hidden_layers": 32, "num_attention_heads": 32,
         "num_key_value_heads": 32, "intermediate_size": 11008},
        _config_source("meta-llama/Llama-2-7b-hf", "verbatim copies in public GitHub repositories (Girafboy/pytorchKQI and others)"),
        6738417664,
        _hf_api_source("meta-llama/Llama-2-7b-hf", "01c7f73d771dfac7d292323805ebc428287df4f9", via=_HELDOUT),
        extra=32 * 64,
        notes=(_LLAMA2_NOTE,
               "The safetensors index agrees: total_size 13,476,839,424 bytes = 2 x 6,738,415,616 "
               "float16 weights + 32 x 64 x 4 bytes of inv_freq."),
    ),
    _record(
        "llama-2-13b", "Llama 2 13B", "meta-llama/Llama-2-13b-hf", "llama",
        {**_LLAMA2_SHARED, "hidden_size": 5120, "num_hidden_layers": 40, "num_attention_heads": 40,
         "num_key_value_heads": 40, "intermediate_size": 13824},
        _config_source("meta-llama/Llama-2-13b-hf", "a verbatim copy in a public GitHub repository (Girafboy/pytorchKQI)"),
        13015866880,
        _hf_api_source("meta-llama/Llama-2-13b-hf", "5c31dfb671ce7cfe2d7bb7c04375e44c55e815b1", via=_HELDOUT),
        extra=40 * 64,
        notes=(_LLAMA2_NOTE,),
    ),
    _record(
        "llama-2-70b", "Llama 2 70B", "meta-llama/Llama-2-70b-hf", "llama",
        {**_LLAMA2_SHARED, "hidden_size": 8192, "num_hidden_layers": 80, "num_attention_heads": 64,
         "num_key_value_heads": 8, "intermediate_size": 28672},
        _config_source("meta-llama/Llama-2-70b-hf", "verbatim copies in public GitHub repositories (Girafboy/pytorchKQI and others)"),
        68976653312,
        _hf_api_source("meta-llama/Llama-2-70b-hf", "3aba440b59558f995867ba6e1f58f21d0336b5bb", via=_HELDOUT),
        extra=80 * 64,
        notes=(_LLAMA2_NOTE, "The only Llama 2 size with grouped-query attention (8 KV heads)."),
    ),
    # ---- Llama 3 / 3.1 / 3.2 -------------------------------------------------------------
    _record(
        "llama-3-8b", "Llama 3 8B", "meta-llama/Meta-Llama-3-8B", "llama",
        {**_LLAMA3_SHARED, "hidden_size": 4096, "num_hidden_layers": 32, "num_attention_heads": 32,
         "num_key_value_heads": 8, "intermediate_size": 14336, "max_position_embeddings": 8192},
        _config_source("meta-llama/Meta-Llama-3-8B", "a verbatim copy in a public GitHub repository (Girafboy/pytorchKQI)"),
        8030261248,
        _keras_source("llama3_8b_en", "llama3", sibling_of="meta-llama/Meta-Llama-3-8B"),
        notes=("The model.safetensors.index.json of this repository gives total_size 16,060,522,496 bytes "
               "= 2 x 8,030,261,248 bfloat16 values, the same figure.",),
    ),
    _record(
        "llama-3-70b", "Llama 3 70B", "meta-llama/Meta-Llama-3-70B", "llama",
        {**_LLAMA3_SHARED, "hidden_size": 8192, "num_hidden_layers": 80, "num_attention_heads": 64,
         "num_key_value_heads": 8, "intermediate_size": 28672, "max_position_embeddings": 8192},
        _config_source("meta-llama/Meta-Llama-3-70B", "copies of its shape keys in public GitHub repositories"),
        70553706496,
        _hf_api_source("NousResearch/Meta-Llama-3-70B", "main",
                       via=("the MODELS table of scripts/build_registry.py in github.com/debaditc/kvfit "
                            "(commit bd4ccabf914323ee9831bc4dfae6bff777aa7966)"),
                       sibling_of="meta-llama/Meta-Llama-3-70B"),
        notes=("The published figure is the hub total of NousResearch/Meta-Llama-3-70B, an ungated "
               "re-upload of the gated meta-llama/Meta-Llama-3-70B weights, as a third-party project "
               "recorded it; no figure read from the meta-llama repository itself was found.",
               "Llama 3.1 70B has the same tensor shapes and the same published count, 70,553,706,496, "
               "read from its own repository."),
    ),
    _record(
        "llama-3.1-8b", "Llama 3.1 8B", "meta-llama/Llama-3.1-8B", "llama",
        {**_LLAMA31_SHARED, "hidden_size": 4096, "num_hidden_layers": 32, "num_attention_heads": 32,
         "num_key_value_heads": 8, "intermediate_size": 14336},
        _config_source("meta-llama/Llama-3.1-8B", "copies in public GitHub repositories"),
        8030261248,
        _hf_api_source("meta-llama/Llama-3.1-8B", "d04e592bb4f6aa9cfee91e2e20afa771667e1d4b", via=_HELDOUT),
        notes=("Same weights layout as Llama 3 8B; the context grows to 128K through llama3 RoPE scaling.",),
    ),
    _record(
        "llama-3.1-70b", "Llama 3.1 70B", "meta-llama/Llama-3.1-70B", "llama",
        {**_LLAMA31_SHARED, "hidden_size": 8192, "num_hidden_layers": 80, "num_attention_heads": 64,
         "num_key_value_heads": 8, "intermediate_size": 28672},
        _config_source("meta-llama/Llama-3.1-70B", "copies in public GitHub repositories"),
        70553706496,
        _hf_api_source("meta-llama/Llama-3.1-70B", "349b2ddb53ce8f2849a6c168a81980ab25258dac", via=_HELDOUT),
        notes=("The repository's safetensors index gives total_size 141,107,412,992 bytes = 2 x the count.",),
    ),
    _record(
        "llama-3.1-405b", "Llama 3.1 405B", "meta-llama/Llama-3.1-405B", "llama",
        {**_LLAMA31_SHARED, "hidden_size": 16384, "num_hidden_layers": 126, "num_attention_heads": 128,
         "num_key_value_heads": 8, "intermediate_size": 53248},
        _config_source("meta-llama/Llama-3.1-405B", "copies of its shape keys in public GitHub repositories"),
        405853388800,
        _hf_api_source("meta-llama/Llama-3.1-405B", "b906e4dc842aa489c962f9db26554dcfdde901fe", via=_HELDOUT),
        notes=("128 query heads share 8 KV heads; the Hugging Face checkpoint is bfloat16 (Meta also "
               "ships FP8 and differently sharded original/ checkpoints, which this record does not describe).",),
    ),
    _record(
        "llama-3.2-1b", "Llama 3.2 1B", "meta-llama/Llama-3.2-1B", "llama",
        {**_LLAMA32_SHARED, "hidden_size": 2048, "num_hidden_layers": 16, "num_attention_heads": 32,
         "num_key_value_heads": 8, "head_dim": 64, "intermediate_size": 8192},
        _config_source("meta-llama/Llama-3.2-1B", "copies of its shape keys in public GitHub repositories"),
        1235814400,
        Source(
            title=("Nikolić, Baluta & Saxena, 'Model Provenance Testing for Large Language Models' "
                   "(arXiv:2502.00706v2, NeurIPS 2025), Appendix Table 4 '# params' column, "
                   "row meta-llama/Llama-3.2-1B-Instruct (the Instruct checkpoint has the same tensor shapes)"),
            url="https://arxiv.org/abs/2502.00706",
            as_of=READ_ON,
            kind="spec",
        ),
        notes=("Ties the output head to the embedding, so the 128,256 x 2048 matrix is stored once.",
               "The published figure is for the Instruct checkpoint, which shares the base model's shapes; "
               "no exact count read from the meta-llama/Llama-3.2-1B repository itself was found.",
               "KerasHub's llama3.2_1b preset lists 1,498,482,688 = 1,235,814,400 + 262,668,288: it counts "
               "exactly one more 128,256 x 2048 matrix (an untied output head), so it is not used here."),
    ),
    _record(
        "llama-3.2-3b", "Llama 3.2 3B", "meta-llama/Llama-3.2-3B", "llama",
        {**_LLAMA32_SHARED, "hidden_size": 3072, "num_hidden_layers": 28, "num_attention_heads": 24,
         "num_key_value_heads": 8, "head_dim": 128, "intermediate_size": 8192},
        _config_source("meta-llama/Llama-3.2-3B", "copies of its shape keys in public GitHub repositories"),
        3212749824,
        _hf_api_source("meta-llama/Llama-3.2-3B", "13afe5124825b4f3751f836b40dafda64c1ed062",
                       via=("the saved hub response apiRepoLlama3_2Data in huggingface_test.go of "
                            "github.com/maruel/huggingface (commit 84f7837283346204fa9da7d1b08b0b5b64510589)")),
        notes=("Ties the output head to the embedding.",
               "arXiv:2502.00706 (Table 4) gives the same 3,212,749,824 for meta-llama/Llama-3.2-3B-Instruct.",
               "KerasHub's llama3.2_3b preset lists 3,606,752,256 = 3,212,749,824 + 394,002,432: it counts "
               "exactly one more 128,256 x 3072 matrix (an untied output head), so it is not used here."),
    ),
    # ---- Mistral / Mixtral -------------------------------------------------------------
    _record(
        "mistral-7b-v0.1", "Mistral 7B v0.1", "mistralai/Mistral-7B-v0.1", "mistral",
        {"model_type": "mistral", "hidden_size": 4096, "num_hidden_layers": 32, "num_attention_heads": 32,
         "num_key_value_heads": 8, "intermediate_size": 14336, "vocab_size": 32000,
         "max_position_embeddings": 32768, "rope_theta": 10000.0, "sliding_window": 4096,
         "rms_norm_eps": 1e-05, "tie_word_embeddings": False, "torch_dtype": "bfloat16"},
        _config_source("mistralai/Mistral-7B-v0.1", _ATLAS.format("mistral-7b-v0.1.config.json") + " and other copies"),
        7241732096,
        _keras_source("mistral_7b_en", "mistral", sibling_of="mistralai/Mistral-7B-v0.1"),
        notes=("Every layer uses a 4096-token sliding window, so the KV cache stops growing at 4096 tokens.",
               "The hub API gives the same total, 7,241,732,096, for mistralai/Mistral-7B-Instruct-v0.1 "
               "(" + _ATLAS.format("mistral-7b-v0.1.api.json") + ")."),
    ),
    _record(
        "mistral-7b-v0.3", "Mistral 7B v0.3", "mistralai/Mistral-7B-v0.3", "mistral",
        {"model_type": "mistral", "hidden_size": 4096, "num_hidden_layers": 32, "num_attention_heads": 32,
         "num_key_value_heads": 8, "intermediate_size": 14336, "vocab_size": 32768,
         "max_position_embeddings": 32768, "rope_theta": 1000000.0, "sliding_window": None,
         "rms_norm_eps": 1e-05, "tie_word_embeddings": False, "torch_dtype": "bfloat16"},
        _config_source("mistralai/Mistral-7B-v0.3"),
        7248023552,
        _keras_source("mistral_0.3_7b_en", "mistral", sibling_of="mistralai/Mistral-7B-v0.3"),
        notes=("v0.3 extends the vocabulary to 32,768 and drops the sliding window (full attention).",
               "KerasHub's mistral_0.3_instruct_7b_en preset lists the same 7,248,023,552 for the "
               "Instruct checkpoint."),
    ),
    _record(
        "mixtral-8x7b", "Mixtral 8x7B", "mistralai/Mixtral-8x7B-v0.1", "mistral",
        {"model_type": "mixtral", "hidden_size": 4096, "num_hidden_layers": 32, "num_attention_heads": 32,
         "num_key_value_heads": 8, "intermediate_size": 14336, "vocab_size": 32000,
         "num_local_experts": 8, "num_experts_per_tok": 2, "max_position_embeddings": 32768,
         "rope_theta": 1000000.0, "sliding_window": None, "rms_norm_eps": 1e-05,
         "tie_word_embeddings": False, "torch_dtype": "bfloat16"},
        _config_source("mistralai/Mixtral-8x7B-v0.1", _ATLAS.format("mixtral-8x7b.config.json") + " and other copies"),
        46702792704,
        _hf_api_source("mistralai/Mixtral-8x7B-Instruct-v0.1", "main", via=_ATLAS.format("mixtral-8x7b.api.json"),
                       sibling_of="mistralai/Mixtral-8x7B-v0.1"),
        notes=("Each token passes through 2 of the 8 experts; Mistral AI describes the active size only "
               "as about 13B, so no exact active count is published.",
               "KerasHub's mixtral_8_7b_en preset gives the same 46,702,792,704."),
    ),
    # ---- Qwen2.5 -------------------------------------------------------------------
    _record(
        "qwen2.5-0.5b", "Qwen2.5 0.5B", "Qwen/Qwen2.5-0.5B", "qwen2.5",
        {**_QWEN25_SHARED, "hidden_size": 896, "num_hidden_layers": 24, "num_attention_heads": 14,
         "num_key_value_heads": 2, "intermediate_size": 4864, "vocab_size": 151936,
         "tie_word_embeddings": True, "max_position_embeddings": 32768, "sliding_window": 32768,
         "max_window_layers": 24, "rms_norm_eps": 1e-06},
        _config_source("Qwen/Qwen2.5-0.5B", "copies of its shape keys in public GitHub repositories"),
        494032768,
        _keras_source("qwen2.5_0.5b_en", "qwen", sibling_of="Qwen/Qwen2.5-0.5B"),
        notes=(_QWEN_VOCAB_NOTE.format("151,936"),
               "Qwen2 layers have q/k/v biases and no o_proj bias; the output head is tied."),
    ),
    _record(
        "qwen2.5-1.5b", "Qwen2.5 1.5B", "Qwen/Qwen2.5-1.5B", "qwen2.5",
        {**_QWEN25_SHARED, "hidden_size": 1536, "num_hidden_layers": 28, "num_attention_heads": 12,
         "num_key_value_heads": 2, "intermediate_size": 8960, "vocab_size": 151936,
         "tie_word_embeddings": True, "max_position_embeddings": 131072, "sliding_window": 131072,
         "max_window_layers": 28, "rms_norm_eps": 1e-06},
        _config_source("Qwen/Qwen2.5-1.5B", "copies of its shape keys in public GitHub repositories"),
        1543714304,
        Source(
            title=("Nikolić, Baluta & Saxena, 'Model Provenance Testing for Large Language Models' "
                   "(arXiv:2502.00706v2, NeurIPS 2025), Appendix Table 4 '# params' column, "
                   "row Qwen/Qwen2.5-1.5B-Instruct (the Instruct checkpoint has the same tensor shapes)"),
            url="https://arxiv.org/abs/2502.00706",
            as_of=READ_ON,
            kind="spec",
        ),
        notes=(_QWEN_VOCAB_NOTE.format("151,936"),
               "The published figure is for the Instruct checkpoint, which shares the base model's shapes; "
               "no exact count read from the Qwen/Qwen2.5-1.5B repository itself was found.",
               "KerasHub lists the same 1,543,714,304 for Qwen2.5-Math-1.5B, a separate model of the same shapes."),
    ),
    _record(
        "qwen2.5-3b", "Qwen2.5 3B", "Qwen/Qwen2.5-3B", "qwen2.5",
        {**_QWEN25_SHARED, "hidden_size": 2048, "num_hidden_layers": 36, "num_attention_heads": 16,
         "num_key_value_heads": 2, "intermediate_size": 11008, "vocab_size": 151936,
         "tie_word_embeddings": True, "max_position_embeddings": 32768, "sliding_window": 32768,
         "max_window_layers": 36, "rms_norm_eps": 1e-06},
        _config_source("Qwen/Qwen2.5-3B", "copies of its shape keys in public GitHub repositories"),
        3085938688,
        _keras_source("qwen2.5_3b_en", "qwen", sibling_of="Qwen/Qwen2.5-3B"),
        notes=(_QWEN_VOCAB_NOTE.format("151,936"),),
    ),
    _record(
        "qwen2.5-7b", "Qwen2.5 7B", "Qwen/Qwen2.5-7B", "qwen2.5",
        {**_QWEN25_SHARED, "hidden_size": 3584, "num_hidden_layers": 28, "num_attention_heads": 28,
         "num_key_value_heads": 4, "intermediate_size": 18944, "vocab_size": 152064,
         "tie_word_embeddings": False, "max_position_embeddings": 131072, "sliding_window": 131072,
         "max_window_layers": 28, "rms_norm_eps": 1e-06},
        _config_source("Qwen/Qwen2.5-7B", "copies of its shape keys in public GitHub repositories"),
        7615616512,
        _hf_api_source("Qwen/Qwen2.5-7B-Instruct", "main", via=_ATLAS.format("qwen2.5-7b.api.json"),
                       sibling_of="Qwen/Qwen2.5-7B"),
        notes=(_QWEN_VOCAB_NOTE.format("152,064"),
               "The Instruct repository's safetensors index gives 15,231,233,024 bytes = 2 x the count.",
               "KerasHub's qwen2.5_7b_en preset lists 6,993,420,288, which matches neither the hub "
               "nor the shapes; it is not used."),
    ),
    _record(
        "qwen2.5-14b", "Qwen2.5 14B", "Qwen/Qwen2.5-14B", "qwen2.5",
        {**_QWEN25_SHARED, "hidden_size": 5120, "num_hidden_layers": 48, "num_attention_heads": 40,
         "num_key_value_heads": 8, "intermediate_size": 13824, "vocab_size": 152064,
         "tie_word_embeddings": False, "max_position_embeddings": 131072, "sliding_window": 131072,
         "max_window_layers": 48, "rms_norm_eps": 1e-05},
        _config_source("Qwen/Qwen2.5-14B", "copies of its shape keys in public GitHub repositories"),
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
        ),
        notes=(_QWEN_VOCAB_NOTE.format("152,064"),
               "The published figure halves the safetensors index total_size (29,540,067,328 bytes over "
               "579 bfloat16 tensors in 8 shards), which the runbook pins for this revision."),
    ),
    _record(
        "qwen2.5-32b", "Qwen2.5 32B", "Qwen/Qwen2.5-32B", "qwen2.5",
        {**_QWEN25_SHARED, "hidden_size": 5120, "num_hidden_layers": 64, "num_attention_heads": 40,
         "num_key_value_heads": 8, "intermediate_size": 27648, "vocab_size": 152064,
         "tie_word_embeddings": False, "max_position_embeddings": 131072, "sliding_window": 131072,
         "max_window_layers": 64, "rms_norm_eps": 1e-05},
        _config_source("Qwen/Qwen2.5-32B", "copies of its shape keys in public GitHub repositories"),
        32763876352,
        _keras_source("qwen2.5_instruct_32b_en", "qwen", sibling_of="Qwen/Qwen2.5-32B-Instruct"),
        notes=(_QWEN_VOCAB_NOTE.format("152,064"),
               "The published figure is for the Instruct checkpoint, which shares the base model's shapes."),
    ),
    _record(
        "qwen2.5-72b", "Qwen2.5 72B", "Qwen/Qwen2.5-72B", "qwen2.5",
        {**_QWEN25_SHARED, "hidden_size": 8192, "num_hidden_layers": 80, "num_attention_heads": 64,
         "num_key_value_heads": 8, "intermediate_size": 29568, "vocab_size": 152064,
         "tie_word_embeddings": False, "max_position_embeddings": 131072, "sliding_window": 131072,
         "max_window_layers": 80, "rms_norm_eps": 1e-05},
        _config_source("Qwen/Qwen2.5-72B", "copies of its shape keys in public GitHub repositories"),
        72706203648,
        _keras_source("qwen2.5_instruct_72b_en", "qwen", sibling_of="Qwen/Qwen2.5-72B-Instruct"),
        notes=(_QWEN_VOCAB_NOTE.format("152,064"),
               "The published figure is for the Instruct checkpoint, which shares the base model's shapes."),
    ),
    # ---- Yi --------------------------------------------------------------------------
    _record(
        "yi-34b", "Yi 34B", "01-ai/Yi-34B", "yi",
        {"model_type": "llama", "hidden_size": 7168, "num_hidden_layers": 60, "num_attention_heads": 56,
         "num_key_value_heads": 8, "intermediate_size": 20480, "vocab_size": 64000,
         "max_position_embeddings": 4096, "rope_theta": 5000000.0, "rms_norm_eps": 1e-05,
         "tie_word_embeddings": False, "torch_dtype": "bfloat16"},
        _config_source("01-ai/Yi-34B", "copies of its shape keys in public GitHub repositories "
                       "(Yi-1.5-34B, read verbatim, has the same shapes)"),
        notes=("A Llama-architecture model; 56 query heads share 8 KV heads.",
               "No exact count for this repository was found in a source that can be cited: the Open LLM "
               "Leaderboard request file for 01-ai/Yi-34B gives only a rounded 34.389 (billions), and the "
               "exact figures seen (34,388,917,248 for Yi-34B-Chat, Yi-34B-200K and Yi-1.5-34B) came from "
               "sources whose repository could not be identified."),
    ),
    # ---- Gemma 2 -------------------------------------------------------------------------
    _record(
        "gemma-2-2b", "Gemma 2 2B", "google/gemma-2-2b", "gemma",
        {**_GEMMA2_SHARED, "hidden_size": 2304, "num_hidden_layers": 26, "num_attention_heads": 8,
         "num_key_value_heads": 4, "head_dim": 256, "intermediate_size": 9216, "query_pre_attn_scalar": 256,
         "torch_dtype": "float32"},
        _config_source("google/gemma-2-2b", "a verbatim copy in a public GitHub repository (Girafboy/pytorchKQI)"),
        2614341888,
        _keras_source("gemma2_2b_en", "gemma", sibling_of="google/gemma-2-2b"),
        notes=(_GEMMA2_NOTE,),
    ),
    _record(
        "gemma-2-9b", "Gemma 2 9B", "google/gemma-2-9b", "gemma",
        {**_GEMMA2_SHARED, "hidden_size": 3584, "num_hidden_layers": 42, "num_attention_heads": 16,
         "num_key_value_heads": 8, "head_dim": 256, "intermediate_size": 14336, "query_pre_attn_scalar": 256,
         "torch_dtype": "float32"},
        _config_source("google/gemma-2-9b", "a verbatim copy in a public GitHub repository (Girafboy/pytorchKQI)"),
        9241705984,
        _keras_source("gemma2_9b_en", "gemma", sibling_of="google/gemma-2-9b"),
        notes=(_GEMMA2_NOTE, "head_dim 256 x 16 heads = 4096 is wider than hidden_size 3584."),
    ),
    _record(
        "gemma-2-27b", "Gemma 2 27B", "google/gemma-2-27b", "gemma",
        {**_GEMMA2_SHARED, "hidden_size": 4608, "num_hidden_layers": 46, "num_attention_heads": 32,
         "num_key_value_heads": 16, "head_dim": 128, "intermediate_size": 36864, "query_pre_attn_scalar": 144},
        _config_source("google/gemma-2-27b", "copies of its shape keys in public GitHub repositories"),
        27227128320,
        _keras_source("gemma2_27b_en", "gemma", sibling_of="google/gemma-2-27b"),
        notes=(_GEMMA2_NOTE,),
    ),
    # ---- Phi-3 -----------------------------------------------------------------------------
    _record(
        "phi-3-mini-4k", "Phi-3-mini-4k-instruct", "microsoft/Phi-3-mini-4k-instruct", "phi",
        {"model_type": "phi3", "hidden_size": 3072, "num_hidden_layers": 32, "num_attention_heads": 32,
         "num_key_value_heads": 32, "intermediate_size": 8192, "vocab_size": 32064,
         "max_position_embeddings": 4096, "original_max_position_embeddings": 4096, "rope_theta": 10000.0,
         "sliding_window": 2047, "rms_norm_eps": 1e-05, "attention_bias": False,
         "tie_word_embeddings": False, "torch_dtype": "bfloat16"},
        _config_source("microsoft/Phi-3-mini-4k-instruct", "copies of its shape keys in public GitHub repositories"),
        3821079552,
        _keras_source("phi3_mini_4k_instruct_en", "phi3", sibling_of="microsoft/Phi-3-mini-4k-instruct"),
        notes=("Phi-3 fuses q/k/v into one qkv_proj and gate/up into one gate_up_proj; the element "
               "count is the same as separate projections.",
               "Microsoft publishes only an instruction-tuned checkpoint of this model."),
    ),
    # ---- DeepSeek-V3 ---------------------------------------------------------------------
    _record(
        "deepseek-v3", "DeepSeek-V3", "deepseek-ai/DeepSeek-V3", "deepseek",
        {"model_type": "deepseek_v3", "hidden_size": 7168, "num_hidden_layers": 61,
         "num_attention_heads": 128, "num_key_value_heads": 128, "intermediate_size": 18432,
         "moe_intermediate_size": 2048, "n_routed_experts": 256, "n_shared_experts": 1,
         "num_experts_per_tok": 8, "first_k_dense_replace": 3, "moe_layer_freq": 1,
         "n_group": 8, "topk_group": 4, "routed_scaling_factor": 2.5, "scoring_func": "sigmoid",
         "topk_method": "noaux_tc", "norm_topk_prob": True, "num_nextn_predict_layers": 1,
         "q_lora_rank": 1536, "kv_lora_rank": 512, "qk_nope_head_dim": 128, "qk_rope_head_dim": 64,
         "v_head_dim": 128, "vocab_size": 129280, "max_position_embeddings": 163840,
         "rope_theta": 10000.0,
         "rope_scaling": {"type": "yarn", "factor": 40, "original_max_position_embeddings": 4096,
                          "beta_fast": 32, "beta_slow": 1, "mscale": 1.0, "mscale_all_dim": 1.0},
         "rms_norm_eps": 1e-06, "attention_bias": False, "tie_word_embeddings": False,
         "torch_dtype": "bfloat16",
         "quantization_config": {"quant_method": "fp8", "fmt": "e4m3", "activation_scheme": "dynamic",
                                 "weight_block_size": [128, 128]}},
        _config_source("deepseek-ai/DeepSeek-V3", _ATLAS.format("deepseek-v3.config.json") + " and other copies"),
        684531386000,
        _hf_api_source("deepseek-ai/DeepSeek-V3", "main", via=_ATLAS.format("deepseek-v3.api.json")),
        extra=13463426304 + 41540496,
        notes=(
            "The hub total (BF16 3,918,786,560 + F8_E4M3 680,571,043,840 + F32 41,555,600) counts every "
            "stored element. Two parts are not the 671B main model that ModelSpec counts: "
            "(1) the multi-token-prediction module (num_nextn_predict_layers = 1), 13,463,426,304 elements "
            "= one MoE decoder layer 11,507,286,272 + eh_proj 2 x 7168 x 7168 + enorm, hnorm and "
            "shared_head.norm 3 x 7168 + its own copies of embed_tokens and shared_head.head 2 x 129,280 x 7168; "
            "(2) 41,540,496 FP32 weight_scale_inv values, one per 128 x 128 block of every FP8 linear "
            "(the other 15,104 F32 values are the routers' e_score_correction_bias, which are parameters).",
            "DeepSeek describes the release as 671B main-model weights plus a 14B MTP module, about 685B in all.",
            "Weights ship in FP8 (E4M3) with FP32 block scales, so bytes are not 2 x parameters: the "
            "safetensors total_size cannot be halved to a count.",
            "About 37B parameters are active per token (DeepSeek's rounded figure; no exact count is published).",
        ),
    ),
)

_BY_ID: Mapping[str, ModelRecord] = MappingProxyType({r.id: r for r in _RECORDS})


def _key(text: str) -> str:
    return " ".join(text.strip().lower().replace("_", " ").split())


def _index() -> dict[str, ModelRecord]:
    keys: dict[str, ModelRecord] = {}
    for r in _RECORDS:
        for alias in (r.id, r.name, r.hf_repo, r.hf_repo.split("/", 1)[1]):
            keys.setdefault(_key(alias), r)
    return keys


_LOOKUP: Mapping[str, ModelRecord] = MappingProxyType(_index())


# --------------------------------------------------------------------------- public API
def model_ids() -> list[str]:
    """Ids of every catalogued model, in catalog order.

    Returns:
        The ids, e.g. ``["llama-2-7b", ...]``.

    Example:
        >>> "deepseek-v3" in model_ids()
        True
    """
    return [r.id for r in _RECORDS]


def all_models() -> tuple[ModelRecord, ...]:
    """Every catalogued :class:`ModelRecord`, in catalog order.

    Returns:
        The records.

    Example:
        >>> len(all_models()) == len(model_ids())
        True
    """
    return _RECORDS


def get_model_record(id_or_name: str) -> ModelRecord:
    """Find a record by id, display name or Hugging Face repository (any letter case).

    Args:
        id_or_name: ``"llama-3-8b"``, ``"Llama 3 8B"``, ``"meta-llama/Meta-Llama-3-8B"``
            or ``"Meta-Llama-3-8B"``.

    Returns:
        The matching record.

    Raises:
        UnknownNameError: No record matches; the message lists the ids and the closest ones.

    Example:
        >>> get_model_record("MIXTRAL-8X7B").name
        'Mixtral 8x7B'
        >>> get_model_record("llama-3-8")
        Traceback (most recent call last):
        ...
        calculators.errors.UnknownNameError: model: got 'llama-3-8'; expected one of: ...
    """
    if not isinstance(id_or_name, str):
        raise UnknownNameError("model", repr(id_or_name), model_ids())
    record = _BY_ID.get(id_or_name) or _LOOKUP.get(_key(id_or_name))
    if record is None:
        raise UnknownNameError("model", id_or_name, model_ids())
    return record


def resolve_model(value: str) -> ModelSpec:
    """A catalog id or name, or a config.json given as a path or as JSON text.

    The one reading of a ``--model`` argument that every ``mlhw`` subcommand shares.

    >>> resolve_model("llama-3-8b").parameters
    8030261248
    >>> resolve_model('{"model_type": "llama", "hidden_size": 64, "num_hidden_layers": 1,'
    ...               ' "num_attention_heads": 4, "intermediate_size": 128, "vocab_size": 10}').hidden_size
    64
    """
    text = str(value).strip()
    if text.lstrip("\ufeff \t\r\n").startswith(("{", "[")) or text.endswith(".json"):
        return ModelSpec.from_config(text)
    return get_model(text)


def get_model(id_or_name: str) -> ModelSpec:
    """The :class:`~calculators.model.ModelSpec` of a catalogued model.

    Args:
        id_or_name: Anything :func:`get_model_record` accepts.

    Returns:
        The parsed shapes, named with the record's display name.

    Raises:
        UnknownNameError: No record matches.

    Example:
        >>> spec = get_model("mixtral-8x7b")
        >>> spec.parameters, spec.active_parameters
        (46702792704, 12879925248)
    """
    return get_model_record(id_or_name).spec()
