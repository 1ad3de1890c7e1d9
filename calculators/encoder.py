"""Encoder models for embedding and reranking (BERT, RoBERTa / XLM-RoBERTa, ModernBERT), read from ``config.json``.

An encoder reads the whole input at once (bidirectional attention), keeps no cache and
returns one vector per token, which an embedding model pools and a reranker scores. Its
layers differ from a decoder's in every term (:class:`EncoderSpec`):

* **BERT, RoBERTa, XLM-RoBERTa** (``modeling_bert.py``, ``modeling_xlm_roberta.py``): word,
  learned position and token-type embeddings and a LayerNorm; per layer q, k, v and an output
  projection with biases, a LayerNorm after attention (post-LN), a two-matrix GELU MLP with
  biases and a second LayerNorm; a pooler (``dense`` + tanh on the first token) in the bare
  ``*Model`` architectures.
* **ModernBERT** (``modeling_modernbert.py``): token embeddings and a LayerNorm, no position
  table (rotary embeddings); per layer a pre-attention LayerNorm (none in layer 0), one fused
  ``Wqkv`` and ``Wo``, a LayerNorm and a gated GeGLU MLP (``Wi`` of 2 x intermediate, ``Wo``),
  no biases by default; a final LayerNorm; attention alternates one global layer with
  ``global_attn_every_n_layers - 1`` local ones of ``local_attention`` tokens.

The head is the one ``architectures`` names: the bare model, a masked-LM head (its decoder tied
to the embeddings) or a sequence-classification head (a reranker).

>>> spec = encoder_from_config({"model_type": "bert", "architectures": ["BertModel"], "vocab_size": 30522,
...     "hidden_size": 768, "num_hidden_layers": 12, "num_attention_heads": 12, "intermediate_size": 3072,
...     "max_position_embeddings": 512, "type_vocab_size": 2})
>>> spec.parameters  # bert-base with its pooler (BertModel)
109482240
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from calculators.config_input import load_config_json
from calculators.errors import ConfigError

#: ``model_type`` of the encoders this module reads: post-LN BERT-style and ModernBERT.
BERT_TYPES = ("bert", "roberta", "xlm-roberta")
MODERNBERT_TYPES = ("modernbert",)
ENCODER_TYPES = (*BERT_TYPES, *MODERNBERT_TYPES)
#: Encoder and encoder-decoder families refused by name, with the reason.
NOT_MODELLED = {
    "distilbert": "DistilBERT has no token-type embeddings or pooler and other key names",
    "albert": "ALBERT factorises its embeddings and shares one layer's weights across layers",
    "electra": "ELECTRA projects a smaller embedding into the encoder",
    "deberta": "DeBERTa adds disentangled relative-position attention",
    "deberta-v2": "DeBERTa adds disentangled relative-position attention",
    "mpnet": "MPNet adds relative-position attention buckets",
    "nomic_bert": "nomic-bert is remote code (rotary, SwiGLU): its layout is not in transformers",
    "new": "gte's 'new' architecture is remote code: its layout is not in transformers",
    "t5": "an encoder-decoder", "mt5": "an encoder-decoder", "bart": "an encoder-decoder",
}
#: What ``architectures[0]`` builds on top of the encoder.
HEADS = ("model", "masked-lm", "sequence-classification")

_MAX_WIDTH = 1 << 17
_MAX_LAYERS = 1024
_MAX_VOCAB = 1 << 24
_MAX_POSITIONS = 1 << 20


@dataclass(frozen=True)
class EncoderSpec:
    """The shapes of an encoder-only transformer that decide its parameters and memory.

    Attributes:
        name: display name.
        model_type: ``bert``, ``roberta``, ``xlm-roberta`` or ``modernbert``.
        hidden_size: width of the token vectors.
        num_layers: encoder layers.
        num_attention_heads: attention heads (every head has its own K and V).
        intermediate_size: MLP width (ModernBERT's ``Wi`` is twice this: input and gate).
        vocab_size: rows of the token embedding.
        max_position_embeddings: longest input in tokens (rows of the learned position table
            of BERT-style models; XLM-RoBERTa's first two rows are padding offsets).
        type_vocab_size: rows of the token-type table (0 for ModernBERT).
        head: ``"model"``, ``"masked-lm"`` or ``"sequence-classification"``.
        num_labels: outputs of a classification head.
        pooler: the bare BERT-style model's pooler (``add_pooling_layer``).
        attention_bias, mlp_bias, norm_bias: biases of ModernBERT's linears and LayerNorms
            (always true in BERT-style models).
        classifier_bias, decoder_bias: biases of ModernBERT's head dense and MLM decoder.
        local_attention: ModernBERT's local window in tokens (``None`` for BERT-style models).
        global_every: ModernBERT: every ``global_every``-th layer (0, n, 2n, ...) attends globally.
        notes: what a reader should know about how it was read.
    """

    name: str
    model_type: str
    hidden_size: int
    num_layers: int
    num_attention_heads: int
    intermediate_size: int
    vocab_size: int
    max_position_embeddings: int
    type_vocab_size: int = 0
    head: str = "model"
    num_labels: int = 2
    pooler: bool = True
    attention_bias: bool = True
    mlp_bias: bool = True
    norm_bias: bool = True
    classifier_bias: bool = True
    decoder_bias: bool = True
    local_attention: int | None = None
    global_every: int = 1
    notes: tuple[str, ...] = ()

    @property
    def modern(self) -> bool:
        """True for ModernBERT (pre-LN, rotary, gated MLP, alternating local attention)."""
        return self.model_type in MODERNBERT_TYPES

    @property
    def head_dim(self) -> int:
        """Width of one attention head."""
        return self.hidden_size // self.num_attention_heads

    @property
    def local_layers(self) -> int:
        """ModernBERT layers with local (windowed) attention: those whose index is not a multiple of ``global_every``."""
        if self.local_attention is None:
            return 0
        return sum(1 for layer in range(self.num_layers) if layer % self.global_every)

    def _norm(self) -> int:
        return self.hidden_size * (2 if self.norm_bias else 1)

    @property
    def embedding_parameters(self) -> int:
        """Embedding tables and their LayerNorm.

        Formula: BERT-style: ``(vocab + positions + token types) x hidden + 2 hidden``;
        ModernBERT: ``vocab x hidden`` + its LayerNorm.
        """
        h = self.hidden_size
        if self.modern:
            return self.vocab_size * h + self._norm()
        return (self.vocab_size + self.max_position_embeddings + self.type_vocab_size) * h + 2 * h

    @property
    def attention_parameters_per_layer(self) -> int:
        """q, k, v and output projections of one layer (ModernBERT: ``Wqkv`` and ``Wo``), with biases."""
        h = self.hidden_size
        return 4 * h * h + (4 * h if self.attention_bias else 0)

    @property
    def mlp_parameters_per_layer(self) -> int:
        """One layer's MLP: BERT-style ``h x I + I + I x h + h``; ModernBERT's GeGLU ``h x 2I + I x h`` (+ biases)."""
        h, width = self.hidden_size, self.intermediate_size
        if self.modern:
            return 3 * h * width + ((2 * width + h) if self.mlp_bias else 0)
        return 2 * h * width + width + h

    @property
    def norm_parameters(self) -> int:
        """Every LayerNorm of the layers (and ModernBERT's final one).

        BERT-style: two per layer (after attention, after the MLP). ModernBERT: one before
        attention except in layer 0, one before the MLP, one final.
        """
        if self.modern:
            return (2 * self.num_layers - 1 + 1) * self._norm()
        return 2 * self.num_layers * 2 * self.hidden_size

    @property
    def head_parameters(self) -> int:
        """The pooler or the task head ``architectures`` names (a tied MLM decoder adds only its bias)."""
        h = self.hidden_size
        if self.head == "model":
            return h * h + h if self.pooler and not self.modern else 0
        if self.modern:  # ModernBertPredictionHead: dense (classifier_bias) + LayerNorm
            head = h * h + (h if self.classifier_bias else 0) + self._norm()
            if self.head == "masked-lm":
                return head + (self.vocab_size if self.decoder_bias else 0)
            return head + h * self.num_labels + self.num_labels
        if self.head == "masked-lm":  # transform dense + LayerNorm, decoder tied, one bias of vocab
            return h * h + h + 2 * h + self.vocab_size
        if self.model_type == "bert":  # pooler + classifier
            return h * h + h + h * self.num_labels + self.num_labels
        return h * h + h + h * self.num_labels + self.num_labels  # RoBERTa: dense + out_proj on <s>

    @property
    def parameters(self) -> int:
        """Exact parameter count of the architecture ``config.json`` names."""
        layers = self.num_layers * (self.attention_parameters_per_layer + self.mlp_parameters_per_layer)
        return self.embedding_parameters + layers + self.norm_parameters + self.head_parameters

    @property
    def served_parameters(self) -> int:
        """Parameters of the model an embedding or reranking forward loads.

        A masked-LM checkpoint is loaded as its bare encoder (``AutoModel``, as
        sentence-transformers does): the MLM head is dropped and a BERT-style encoder gets its
        pooler; the bare model and a classifier are loaded as ``architectures`` names them.
        """
        if self.head != "masked-lm":
            return self.parameters
        h = self.hidden_size
        pooler = 0 if self.modern else h * h + h
        return self.parameters - self.head_parameters + pooler

    @property
    def buffer_bytes(self) -> int:
        """Bytes of the registered buffers a loaded model holds beside its parameters.

        BERT-style: ``position_ids`` and ``token_type_ids`` (int64, one per position);
        ModernBERT: the rotary ``inv_freq`` and its copy for each layer type (FP32, head_dim / 2 each).
        """
        if self.modern:
            types = 2 if self.local_attention is not None and self.global_every > 1 else 1
            return types * 2 * (self.head_dim // 2) * 4
        return 2 * self.max_position_embeddings * 8

    def describe(self) -> str:
        """One line naming the model, its size and its layout."""
        kind = (f"local {self.local_attention} / global every {self.global_every}" if self.modern
                else "full attention")
        return (f"{self.name}: {self.parameters / 1e6:.1f}M params, {self.num_layers} layers, hidden "
                f"{self.hidden_size}, {self.num_attention_heads} heads, {kind}, head {self.head}")


def decoder_refusal(model_type: str) -> str:
    """What a decoder face says it expected when given an encoder's ``model_type``: the family, and where to go.

    >>> decoder_refusal("xlm-roberta").split(":")[0]
    'a decoder-only model'
    """
    if model_type in ENCODER_TYPES:
        where = ("it is an encoder (embedding, reranking): size it with the encoder calculator ('mlhw embed "
                 "--model CONFIG', widget 'Embedding and reranking memory')")
    else:
        where = (f"it is an encoder or encoder-decoder the guide does not model ({NOT_MODELLED.get(model_type, '')}); "
                 f"the encoder calculator ('mlhw embed') reads {', '.join(ENCODER_TYPES)}")
    return f"a decoder-only model: model_type {model_type!r} is not one; {where}"


# --------------------------------------------------------------------------- reading config.json
def _int(data: Mapping[str, Any], key: str, *, maximum: int, default: int | None = None, minimum: int = 1) -> int:
    value = data.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int) or not minimum <= value <= maximum:
        raise ConfigError(key, value, f"an integer from {minimum} to {maximum}")
    return value


def _bool(data: Mapping[str, Any], key: str, default: bool) -> bool:
    value = data.get(key, default)
    if value is None:
        return default
    if not isinstance(value, bool):
        raise ConfigError(key, value, "true or false")
    return value


def _head(data: Mapping[str, Any]) -> tuple[str, int]:
    """The head ``architectures[0]`` builds, and a classifier's label count (``id2label`` or ``num_labels``)."""
    names = data.get("architectures") or []
    if not isinstance(names, list) or not all(isinstance(name, str) for name in names):
        raise ConfigError("architectures", names, "a list of class names")
    name = names[0] if names else ""
    labels = data.get("id2label")
    if isinstance(labels, Mapping) and labels:
        count = len(labels)
    else:
        count = _int(data, "num_labels", maximum=1 << 20, default=2)
    if not name or name.endswith("Model"):
        return "model", count
    if name.endswith("ForMaskedLM"):
        return "masked-lm", count
    if name.endswith("ForSequenceClassification"):
        return "sequence-classification", count
    raise ConfigError("architectures", names, "an encoder class ending in Model, ForMaskedLM or "
                      "ForSequenceClassification (other heads are not modelled)")


def encoder_from_config(config: Mapping[str, Any] | str | bytes | Path, *, name: str | None = None) -> EncoderSpec:
    """Read an encoder's ``config.json`` (a dict, JSON text, its bytes or a file path) into an :class:`EncoderSpec`.

    A position-table size or ModernBERT's attention pattern left out of ``config.json`` takes the
    default of transformers' configuration class, with a note saying so.

    Raises:
        ConfigError: not an encoder this module reads (the family is named, with why), a key
            missing or out of range, or a key that changes shapes and is not modelled
            (relative positions, cross-attention, feed-forward chunking).
    """
    data = load_config_json(config)
    model_type = data.get("model_type")
    if model_type in NOT_MODELLED:
        raise ConfigError("model_type", model_type, f"one of {', '.join(ENCODER_TYPES)} "
                          f"({model_type} is not modelled: {NOT_MODELLED[str(model_type)]})")
    if model_type not in ENCODER_TYPES:
        raise ConfigError("model_type", model_type, f"an encoder: one of {', '.join(ENCODER_TYPES)}")
    hidden = _int(data, "hidden_size", maximum=_MAX_WIDTH)
    heads = _int(data, "num_attention_heads", maximum=4096)
    if hidden % heads:
        raise ConfigError("num_attention_heads", heads, f"a divisor of hidden_size ({hidden})")
    head, labels = _head(data)
    common = dict(
        name=name or str(data.get("_name_or_path") or model_type), model_type=str(model_type), hidden_size=hidden,
        num_layers=_int(data, "num_hidden_layers", maximum=_MAX_LAYERS), num_attention_heads=heads,
        intermediate_size=_int(data, "intermediate_size", maximum=_MAX_WIDTH * 16),
        vocab_size=_int(data, "vocab_size", maximum=_MAX_VOCAB), head=head, num_labels=labels,
    )
    if model_type in MODERNBERT_TYPES:
        return _modernbert(data, common)
    for key, refused in (("is_decoder", True), ("add_cross_attention", True)):
        if data.get(key) is refused:
            raise ConfigError(key, refused, "false (an encoder's bidirectional layers without cross-attention)")
    position = data.get("position_embedding_type", "absolute")
    if position not in ("absolute", None):
        raise ConfigError("position_embedding_type", position, "absolute (relative-position tables are not "
                          "modelled)")
    if data.get("chunk_size_feed_forward"):
        raise ConfigError("chunk_size_feed_forward", data["chunk_size_feed_forward"],
                          "0 (a chunked feed-forward changes the activations; not modelled)")
    if "embedding_size" in data and data["embedding_size"] != hidden:
        raise ConfigError("embedding_size", data["embedding_size"], f"absent or hidden_size ({hidden})")
    return EncoderSpec(**common,  # type: ignore[arg-type]
                       max_position_embeddings=_int(data, "max_position_embeddings", maximum=_MAX_POSITIONS,
                                                    default=512),
                       type_vocab_size=_int(data, "type_vocab_size", maximum=1 << 16, default=2, minimum=0),
                       pooler=head == "model", notes=_defaults(data, {"max_position_embeddings": 512,
                                                                      "type_vocab_size": 2}))


def _defaults(data: Mapping[str, Any], defaults: Mapping[str, object]) -> tuple[str, ...]:
    """A note naming the keys config.json leaves out and the configuration class's defaults used for them."""
    missing = {key: value for key, value in defaults.items() if key not in data}
    if not missing:
        return ()
    shown = ", ".join(f"{key}={value}" for key, value in missing.items())
    return (f"config.json has no {', '.join(missing)}; used the defaults of transformers' configuration class "
            f"({shown})",)


def _modernbert(data: Mapping[str, Any], common: dict[str, Any]) -> EncoderSpec:
    layers = common["num_layers"]
    every = _int(data, "global_attn_every_n_layers", maximum=_MAX_LAYERS, default=3)
    layer_types = data.get("layer_types")
    if layer_types is not None:
        expected = ["sliding_attention" if i % every else "full_attention" for i in range(layers)]
        if layer_types != expected:
            raise ConfigError("layer_types", layer_types, f"every {every}th layer full_attention from layer 0, the "
                              "others sliding_attention (other patterns are not modelled)")
    if _bool(data, "is_causal", False):
        raise ConfigError("is_causal", True, "false (a bidirectional encoder)")
    return EncoderSpec(**common,
                       max_position_embeddings=_int(data, "max_position_embeddings", maximum=_MAX_POSITIONS,
                                                    default=8192),
                       type_vocab_size=0, pooler=False,
                       attention_bias=_bool(data, "attention_bias", False), mlp_bias=_bool(data, "mlp_bias", False),
                       norm_bias=_bool(data, "norm_bias", False), classifier_bias=_bool(data, "classifier_bias", False),
                       decoder_bias=_bool(data, "decoder_bias", True),
                       local_attention=_int(data, "local_attention", maximum=_MAX_POSITIONS, default=128),
                       global_every=every,
                       notes=_defaults(data, {"max_position_embeddings": 8192, "global_attn_every_n_layers": 3,
                                              "local_attention": 128}))
