"""What a decoder adds around its residual stream beside attention and the MLP: AltUp, LAuReL, per-layer inputs.

Gemma 3n (transformers' ``gemma3n_text``) wraps every decoder layer in three such parts, all
built whatever their size:

* **AltUp** (Alternating Updates, Baykal et al. 2023): the residual stream is ``streams``
  copies of the hidden state; a layer runs on one of them and a small router
  (``modality_router``, hidden -> streams, after an RMSNorm) mixes them before the layer
  (``prediction_coefs``: streams -> streams^2) and after it (``correction_coefs``:
  streams -> streams), and ``correct_output_scale`` (hidden) scales the corrected stream.
  Before the first layer ``streams - 1`` hidden x hidden projections make the extra copies;
  after the last, ``streams - 1`` more fold them back (``altup_projections``,
  ``altup_unembed_projections``).
* **LAuReL** (Learned Augmented Residual Layer, Menghani et al. 2024): a low-rank
  ``hidden -> rank -> hidden`` pair and an RMSNorm beside attention.
* **Per-layer inputs** ("per-layer embeddings"): every token looks up ``layers x width``
  values in a table of ``vocab`` rows (``embed_tokens_per_layer``) and adds them to a
  projection of its embedding (``per_layer_model_projection``: hidden -> ``layers x width``,
  an RMSNorm of ``width``); each layer gates its slice (``per_layer_input_gate``: hidden ->
  width), projects it back (``per_layer_projection``: width -> hidden) and normalises it (an
  RMSNorm of hidden). The table is read by lookup, not multiplied: a token reads ``layers x
  width`` of its values, which is why Google can keep it out of accelerator memory.

No part has a bias; every RMSNorm weighs its width.

>>> extras = ResidualAugmentSpec(altup_streams=4, laurel_rank=64, per_layer_input_width=256,
...                              per_layer_input_vocab=262144)
>>> extras.layer_parameters(hidden_size=2048)  # per layer: 4 + 64 + 8192 + 2 x 2048 (AltUp), LAuReL, per-layer
1327184
>>> extras.table_parameters(layers=30)  # Gemma 3n E2B's per-layer embedding table: 262,144 x 30 x 256
2013265920

References:
    transformers 5.23 ``models/gemma3n/modeling_gemma3n.py`` (Gemma3nTextAltUp,
    Gemma3nTextLaurelBlock, Gemma3nTextDecoderLayer, Gemma3nTextModel); Baykal et al. 2023,
    "Alternating Updates for Efficient Transformers" (NeurIPS); Menghani et al. 2024, "LAuReL:
    Learned Augmented Residual Layer" (arXiv:2411.07501).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ResidualAugmentSpec:
    """Gemma 3n's AltUp streams, LAuReL rank and per-layer inputs (each part present, as transformers builds them).

    Attributes:
        altup_streams: copies of the hidden state the residual stream carries (``altup_num_inputs``).
        laurel_rank: the LAuReL projections' rank (``laurel_rank``).
        per_layer_input_width: each layer's slice of a token's per-layer input (``hidden_size_per_layer_input``).
        per_layer_input_vocab: rows of the per-layer embedding table (``vocab_size_per_layer_input``).
    """

    altup_streams: int
    laurel_rank: int
    per_layer_input_width: int
    per_layer_input_vocab: int

    def layer_linear_shapes(self, *, hidden_size: int) -> list[tuple[str, int, int]]:
        """``(name, in_features, out_features)`` of one layer's ``nn.Linear`` weights, in module order."""
        n, h, p = self.altup_streams, hidden_size, self.per_layer_input_width
        return [("altup.correction_coefs", n, n), ("altup.prediction_coefs", n, n * n),
                ("altup.modality_router", h, n), ("laurel.linear_left", h, self.laurel_rank),
                ("laurel.linear_right", self.laurel_rank, h), ("per_layer_input_gate", h, p),
                ("per_layer_projection", p, h)]

    def layer_other_parameters(self, *, hidden_size: int) -> int:
        """One layer's weights that are not linears: ``correct_output_scale`` and three RMSNorms of hidden (AltUp's
        router norm, LAuReL's and the per-layer input's)."""
        return 4 * hidden_size

    def layer_parameters(self, *, hidden_size: int) -> int:
        """All of one layer's AltUp, LAuReL and per-layer-input parameters (count)."""
        linears = sum(i * o for _name, i, o in self.layer_linear_shapes(hidden_size=hidden_size))
        return linears + self.layer_other_parameters(hidden_size=hidden_size)

    def model_linear_shapes(self, *, hidden_size: int, layers: int) -> list[tuple[str, int, int, int]]:
        """``(name, in_features, out_features, count)`` of the linears outside the layers: AltUp's stream projections
        in and out, and the projection of the embedding to every layer's input."""
        h, copies = hidden_size, self.altup_streams - 1
        return [("altup_projections", h, h, copies), ("altup_unembed_projections", h, h, copies),
                ("per_layer_model_projection", h, layers * self.per_layer_input_width, 1)]

    def table_parameters(self, *, layers: int) -> int:
        """The per-layer embedding table: ``vocab x layers x width`` (count)."""
        return self.per_layer_input_vocab * layers * self.per_layer_input_width

    def model_parameters(self, *, hidden_size: int, layers: int) -> int:
        """Parameters outside the layers: the table, the projections and the per-layer input's RMSNorm (width)."""
        linears = sum(i * o * count for _name, i, o, count in self.model_linear_shapes(hidden_size=hidden_size,
                                                                                       layers=layers))
        return self.table_parameters(layers=layers) + linears + self.per_layer_input_width
