"""Encoder models for embedding and reranking: their config values and published parameter counts.

Each :class:`EncoderRecord` holds the ``config.json`` values that decide the shapes
(:func:`calculators.encoder.encoder_from_config` reads them) and a count published by a third
party, with what the count is of: the checkpoint as its ``architectures`` names it, or the bare
encoder that ``AutoModel`` (and sentence-transformers, MTEB) load from it. Counts rounded to
millions are recorded as such (``published_rounding``).

>>> get_encoder("bge-m3").parameters
567754752
>>> get_encoder_record("bert-base-uncased").published_parameters  # the hub's safetensors total
110106428
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal, TypedDict, Unpack

from calculators.catalog.model_record import config_source, freeze, thaw
from calculators.catalog.sources import Source
from calculators.encoder import EncoderSpec, encoder_from_config
from calculators.errors import UnknownNameError

_READ = "2026-11-29"
HF_JS = Source("huggingface.js, packages/hub/src/lib/parse-safetensors-metadata.spec.ts: parameters by dtype of "
               "the Hub checkpoints bert-base-uncased (F32 110,106,428) and roberta-base (F32 124,697,433, "
               "I64 514)", "https://github.com/huggingface/huggingface.js/blob/36ef28de0d28b67019b69cf32e3b10f51a0ec93d/"
               "packages/hub/src/lib/parse-safetensors-metadata.spec.ts", _READ)
_MTEB = ("https://github.com/embeddings-benchmark/mteb/blob/a905523d0111f999360b312bd4a601a0a97a0e1c/"
         "mteb/models/model_implementations/{}")


def _mteb(module: str, repo: str, count: str) -> Source:
    return Source(f"MTEB model registry, mteb/models/model_implementations/{module}: ModelMeta of {repo}, "
                  f"n_parameters={count} (the model MTEB loads)", _MTEB.format(module), _READ)


MODERNBERT_PAPER = Source("Warner et al., 'Smarter, Better, Faster, Longer: A Modern Bidirectional Encoder' "
                          "(arXiv:2412.13663), section 2.1.3: 22 and 28 layers, 'a total parameter count of 149 "
                          "and 395 million'", "https://arxiv.org/abs/2412.13663", "2024-12-18")


@dataclass(frozen=True)
class EncoderRecord:
    """One catalogued encoder.

    Attributes:
        id: short lowercase key, e.g. ``"bge-m3"``.
        name: display name.
        hf_repo: the Hugging Face repository.
        task: ``"embedding"``, ``"reranking"`` or ``"base"`` (a pre-trained backbone).
        config: the ``config.json`` values that decide the shapes (read-only).
        source: where the config values come from.
        published_parameters: a published count, or ``None`` where none was found.
        published_source: where it comes from.
        published_of: ``"checkpoint"`` (the architecture ``config.json`` names) or
            ``"encoder"`` (the bare encoder ``AutoModel`` loads).
        published_rounding: the count's precision in parameters (1: exact; 1,000,000: "568M").
        published_extra_elements: stored elements the count includes that the modelled
            architecture does not build (a pre-training head), explained in :attr:`notes`.
        notes: what a reader should know.
    """

    id: str
    name: str
    hf_repo: str
    task: str
    config: Mapping[str, Any]
    source: Source
    published_parameters: int | None = None
    published_source: Source | None = None
    published_of: Literal["checkpoint", "encoder"] = "checkpoint"
    published_rounding: int = 1
    published_extra_elements: int = 0
    notes: tuple[str, ...] = ()

    def spec(self) -> EncoderSpec:
        """The :class:`~calculators.encoder.EncoderSpec` of :attr:`config`."""
        return encoder_from_config(thaw(self.config), name=self.name)


_BERT_BASE = {"model_type": "bert", "vocab_size": 30522, "hidden_size": 768, "num_hidden_layers": 12,
              "num_attention_heads": 12, "intermediate_size": 3072, "hidden_act": "gelu",
              "max_position_embeddings": 512, "type_vocab_size": 2, "layer_norm_eps": 1e-12, "pad_token_id": 0}
_BERT_LARGE = {**_BERT_BASE, "hidden_size": 1024, "num_hidden_layers": 24, "num_attention_heads": 16,
               "intermediate_size": 4096}
_XLMR_LARGE = {"model_type": "xlm-roberta", "vocab_size": 250002, "hidden_size": 1024, "num_hidden_layers": 24,
               "num_attention_heads": 16, "intermediate_size": 4096, "hidden_act": "gelu",
               "max_position_embeddings": 514, "type_vocab_size": 1, "layer_norm_eps": 1e-05, "pad_token_id": 1}
_XLMR_BASE = {**_XLMR_LARGE, "hidden_size": 768, "num_hidden_layers": 12, "num_attention_heads": 12,
              "intermediate_size": 3072}
_M3 = {**_XLMR_LARGE, "max_position_embeddings": 8194}
_MODERNBERT_BASE = {"model_type": "modernbert", "vocab_size": 50368, "hidden_size": 768, "num_hidden_layers": 22,
                    "num_attention_heads": 12, "intermediate_size": 1152, "hidden_activation": "gelu",
                    "max_position_embeddings": 8192, "global_attn_every_n_layers": 3, "local_attention": 128,
                    "norm_bias": False, "mlp_bias": False, "attention_bias": False, "classifier_bias": False,
                    "decoder_bias": True, "pad_token_id": 50283}
_MODERNBERT_LARGE = {**_MODERNBERT_BASE, "hidden_size": 1024, "num_hidden_layers": 28, "num_attention_heads": 16,
                     "intermediate_size": 2624}
_BERT_PRETRAINING = ("The Hub checkpoint is BERT's pre-training model: besides the masked-LM head it stores the "
                     "pooler (768 x 768 + 768) and the next-sentence head (768 x 2 + 2), 592,130 elements the "
                     "masked-LM architecture does not build.")


class _Count(TypedDict, total=False):
    """A published count of an encoder, as :class:`EncoderRecord`'s ``published_*`` attributes say: the
    count, its source, what it counts (``of``), its ``rounding`` and the ``extra`` elements it holds."""

    published: int | None
    published_source: Source | None
    of: Literal["checkpoint", "encoder"]
    rounding: int
    extra: int


def _record(id: str, name: str, repo: str, task: str, config: dict[str, Any], architecture: str, *,
            notes: tuple[str, ...] = (), **count: Unpack[_Count]) -> EncoderRecord:
    return EncoderRecord(id, name, repo, task, freeze({**config, "architectures": [architecture]}),
                         config_source(repo, as_of=_READ), count.get("published"), count.get("published_source"),
                         count.get("of", "checkpoint"), count.get("rounding", 1), count.get("extra", 0), notes)


_RECORDS: tuple[EncoderRecord, ...] = (
    _record("bert-base-uncased", "BERT base (uncased)", "google-bert/bert-base-uncased", "base", _BERT_BASE,
            "BertForMaskedLM", published=110_106_428, published_source=HF_JS, extra=592_130,
            notes=(_BERT_PRETRAINING,)),
    _record("roberta-base", "RoBERTa base", "FacebookAI/roberta-base", "base",
            {**_XLMR_BASE, "model_type": "roberta", "vocab_size": 50265}, "RobertaForMaskedLM",
            published=124_697_433, published_source=HF_JS,
            notes=("The checkpoint also stores the position_ids buffer (514 int64), which is not a parameter.",)),
    _record("xlm-roberta-base", "XLM-RoBERTa base", "FacebookAI/xlm-roberta-base", "base", _XLMR_BASE,
            "XLMRobertaForMaskedLM", published=278_043_648, of="encoder",
            published_source=_mteb("facebookai.py", "FacebookAI/xlm-roberta-base", "278043648")),
    _record("xlm-roberta-large", "XLM-RoBERTa large", "FacebookAI/xlm-roberta-large", "base", _XLMR_LARGE,
            "XLMRobertaForMaskedLM", published=559_890_432, of="encoder",
            published_source=_mteb("facebookai.py", "FacebookAI/xlm-roberta-large", "559890432")),
    _record("bge-base-en-v1.5", "BGE base en v1.5", "BAAI/bge-base-en-v1.5", "embedding", _BERT_BASE, "BertModel",
            published=109_000_000, rounding=1_000_000, of="encoder",
            published_source=_mteb("bge_models.py", "BAAI/bge-base-en-v1.5", "109_000_000")),
    _record("bge-large-en-v1.5", "BGE large en v1.5", "BAAI/bge-large-en-v1.5", "embedding", _BERT_LARGE,
            "BertModel", published=335_000_000, rounding=1_000_000, of="encoder",
            published_source=_mteb("bge_models.py", "BAAI/bge-large-en-v1.5", "335_000_000")),
    _record("bge-m3", "BGE-M3", "BAAI/bge-m3", "embedding", _M3, "XLMRobertaModel", published=568_000_000,
            rounding=1_000_000, of="encoder",
            published_source=_mteb("bge_models.py", "BAAI/bge-m3", "568_000_000"),
            notes=("XLM-RoBERTa large with 8,194 positions (8,192 usable tokens); its sparse and ColBERT heads "
                   "live in separate files and are not counted.",)),
    _record("multilingual-e5-large", "multilingual-E5 large", "intfloat/multilingual-e5-large", "embedding",
            _XLMR_LARGE, "XLMRobertaModel", published=560_000_000, rounding=1_000_000, of="encoder",
            published_source=_mteb("e5_models.py", "intfloat/multilingual-e5-large", "560_000_000")),
    _record("bge-reranker-v2-m3", "BGE reranker v2 M3", "BAAI/bge-reranker-v2-m3", "reranking",
            {**_M3, "id2label": {"0": "LABEL_0"}}, "XLMRobertaForSequenceClassification",
            notes=("No published count was found (MTEB records none): BGE-M3's encoder with a one-output "
                   "classification head (dense 1024 x 1024 and out_proj 1024 x 1) in place of the pooler.",)),
    _record("modernbert-base", "ModernBERT base", "answerdotai/ModernBERT-base", "base", _MODERNBERT_BASE,
            "ModernBertForMaskedLM", published=149_000_000, rounding=1_000_000, of="encoder",
            published_source=MODERNBERT_PAPER),
    _record("modernbert-large", "ModernBERT large", "answerdotai/ModernBERT-large", "base", _MODERNBERT_LARGE,
            "ModernBertForMaskedLM", published=395_000_000, rounding=1_000_000, of="encoder",
            published_source=MODERNBERT_PAPER),
    _record("modernbert-embed-base", "ModernBERT Embed base", "nomic-ai/modernbert-embed-base", "embedding",
            _MODERNBERT_BASE, "ModernBertModel", published=149_014_272, of="encoder",
            published_source=_mteb("nomic_models.py", "nomic-ai/modernbert-embed-base", "149014272")),
)


def all_encoder_records() -> tuple[EncoderRecord, ...]:
    """Every catalogued encoder, in catalog order."""
    return _RECORDS


def encoder_ids() -> list[str]:
    """Ids of every catalogued encoder.

    >>> "bge-m3" in encoder_ids()
    True
    """
    return [record.id for record in _RECORDS]


def get_encoder_record(id_or_repo: str) -> EncoderRecord:
    """The record with this id or Hugging Face repository (case-insensitive); raises :class:`UnknownNameError`."""
    key = str(id_or_repo).strip().lower()
    for record in _RECORDS:
        if key in (record.id, record.hf_repo.lower()):
            return record
    raise UnknownNameError("model", str(id_or_repo), encoder_ids())


def get_encoder(id_or_repo: str) -> EncoderSpec:
    """The :class:`~calculators.encoder.EncoderSpec` of a catalogued encoder."""
    return get_encoder_record(id_or_repo).spec()


def resolve_encoder(value: str) -> EncoderSpec:
    """A catalogued encoder's id or repository, or an encoder's config.json as a path or JSON text.

    >>> resolve_encoder("modernbert-base").local_layers
    14
    """
    text = str(value).strip()
    if text.lstrip("\ufeff \t\r\n").startswith(("{", "[")) or text.endswith(".json"):
        return encoder_from_config(text)
    return get_encoder(text)
