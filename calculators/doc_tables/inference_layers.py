"""Generated table for the KV-cache page (docs/inference/kv-cache.md): the catalog's models whose layers are not
all alike.

Hybrid models (Mamba or linear-attention layers beside a few attention layers), interleaved
windowed and chunked attention, dense and MoE layers mixed, vision towers: each row is what
:mod:`calculators.model_config` reads from the model's ``config.json``, layer by layer, and
what generation then keeps per sequence (:func:`~calculators.memory.inference.kv_cache_bytes`,
:func:`~calculators.memory.inference.recurrent_state_bytes`).
"""

from __future__ import annotations

from calculators.catalog.models import READ_ON, all_models
from calculators.columns import Column, gib_column, number_column
from calculators.memory.inference import kv_cache_bytes, recurrent_state_bytes
from calculators.model import ModelSpec
from calculators.tables import Table, TableFunction, computed_by, declared_tables, table
from calculators.units import MIB

#: Short names of the layer kinds, as the table writes them.
_MIXER_NAMES = {"full_attention": "attention", "sliding_attention": "windowed", "chunked_attention": "chunked",
                "linear_attention": "linear attention", "mamba": "Mamba", "cross_attention": "cross-attention"}


def layer_mix(spec: ModelSpec) -> str:
    """The model's layers by kind, e.g. ``"36 linear attention, 12 attention"`` (MLP kinds left out).

    >>> from calculators.catalog.models import get_model
    >>> layer_mix(get_model("qwen3-next-80b-a3b"))
    '36 linear attention, 12 attention'
    """
    counts: dict[str, int] = {}
    for layer, count in spec.layer_groups:
        name = " + ".join(_MIXER_NAMES[m] for m in layer.mixers) or "MLP only"
        counts[name] = counts.get(name, 0) + count
    mix = ", ".join(f"{n} {name}" for name, n in sorted(counts.items(), key=lambda item: -item[1]))
    shared = sum(count for layer, count in spec.layer_groups if layer.kv_shared)
    return f"{mix}; {shared} reuse earlier layers' K and V" if shared else mix


def _varied(spec: ModelSpec) -> bool:
    """True when the model's layers are not all full attention with one MLP kind, or it has a vision tower."""
    kinds = {layer.mixers for layer, _ in spec.layer_groups}
    return kinds != {("full_attention",)} or spec.vision is not None


@table("inference-layer-kinds")
def layer_kinds_table() -> Table:
    """Per-layer layouts of the catalog's hybrid, windowed, chunked and vision-language models."""
    rows = []
    for record in sorted(all_models(), key=lambda record: record.name.lower()):
        spec = record.spec()
        if not _varied(spec):
            continue
        tower = spec.vision
        # A tower that is not a ViT (Gemma 3n's MobileNet-v5) has a fixed number of tokens per image.
        image = next((other for other in spec.towers if other.modality == "image"), None)
        params = tower.parameters if tower is not None else image.parameters if image is not None else None
        tokens = tower.tokens_per_image() if tower is not None else image.tokens_per_item if image is not None else None
        rows.append((record.name, spec.num_layers, layer_mix(spec), kv_cache_bytes(spec, batch=1, context=8192),
                     kv_cache_bytes(spec, batch=1, context=131072), recurrent_state_bytes(spec, batch=1),
                     params, tokens))
    return Table.of(
        caption=("Models whose layers are not all alike, as their config.json lays them out "
                 f"({computed_by(layer_mix, code=False)}): what one sequence keeps at 8K and 128K tokens of context "
                 "(KV cache of the attention layers, bf16; windowed and chunked layers stop growing at their window "
                 "or chunk) and the fixed state of the linear-attention and Mamba layers (conv state bf16, "
                 "recurrent state fp32), whatever the context; and the vision tower, counted in the weights, with "
                 "the prompt tokens one 1024-pixel image becomes."),
        columns=(Column("model"), number_column("layers"), Column("layers by mixer"),
                 gib_column("KV at 8K, GiB", 2), gib_column("KV at 128K, GiB", 2),
                 number_column("fixed state, MiB", 1, unit=MIB),
                 number_column("vision tower, M params", 0, unit=1e6, missing="none"),
                 number_column("tokens per image", missing="-")),
        rows=rows,
        assumptions=("batch 1, KV cache bf16, transformers' cache layout; a 1024 x 1024 px image",
                     f"model configs as read on {READ_ON}"),
    )


TABLES: dict[str, TableFunction] = declared_tables(globals())
