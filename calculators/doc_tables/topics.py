"""Tables of the sections on checkpoints on disk, serving-engine features and idle serving cost.

Cells come from :mod:`calculators.checkpoint` (checkpoint bytes, read time from the storage
catalog), :mod:`calculators.serving` (prefix caching, chunked prefill, KV offload) and the
price catalog (:mod:`calculators.catalog.prices`).

>>> TABLES["system-checkpoint-sizes"]().columns[:3]
('model', 'recipe', 'trainable params')
"""

from __future__ import annotations

from typing import Any

from calculators.catalog.gpus import get_gpu
from calculators.catalog.models import get_model, model_name
from calculators.catalog.prices import EDITION, median_cloud_usd_per_gpu_hour, offers_for
from calculators.catalog.storage import get_storage
from calculators.checkpoint import checkpoint_bytes, read_seconds
from calculators.columns import Column, gb_column, gib_column, number_column, percent_column
from calculators.memory.inference import kv_cache_bytes
from calculators.memory.weights import weight_bytes
from calculators.serving import chunked_prefill, offload_seconds, prefix_sharing
from calculators.tables import Table, TableFunction, computed_by, declared_tables, table

#: Recipes of the checkpoint table: (label, checkpoint_bytes keyword arguments).
RECIPES: tuple[tuple[str, dict[str, Any]], ...] = (
    ("full, bf16-mixed AdamW", {"method": "full", "precision": "bf16-mixed"}),
    ("full, pure bf16 AdamW", {"method": "full", "precision": "bf16"}),
    ("LoRA r16 all-linear", {"method": "lora"}),
)
CHECKPOINT_MODELS = ("llama-3.1-8b", "llama-3.1-70b")
#: Storage classes the read times are shown for.
READ_FROM = ("hdd", "sata-ssd", "nvme-gen4")
#: Serving examples: the model and GPU of the engine-features table.
SERVE_MODEL = "llama-3.1-8b"
#: Hours in an average month (365.25 x 24 / 12).
HOURS_PER_MONTH = 730.5
IDLE_GPUS = ("l4", "l40s", "a100-80gb-sxm", "h100-sxm")



def _seconds(value: float) -> str:
    """Seconds with one decimal below 10, whole seconds above."""
    return f"{value:.1f}" if value < 10 else f"{value:,.0f}"


def _billions(count: float) -> str:
    """A parameter count in billions with three decimals, e.g. ``'8.030B'``."""
    return f"{count / 1e9:.3f}B"


@table("system-checkpoint-sizes")
def checkpoint_sizes() -> Table:
    """Resumable checkpoint (weights + optimizer state) and served-model bytes, with read times."""
    rows = []
    for model in CHECKPOINT_MODELS:
        spec = get_model(model)
        for label, settings in RECIPES:
            size = checkpoint_bytes(spec, **settings)
            reads = [read_seconds(size.total_bytes, storage=s) for s in READ_FROM]
            rows.append((model_name(model), label, size.trainable_parameters, size.weights_bytes,
                         size.optimizer_bytes, size.total_bytes, size.serving_bytes, *reads))
    storage_names = [get_storage(s).name for s in READ_FROM]
    return Table.of(
        caption=("Bytes of a training checkpoint that can resume the run (the trainable weights as the optimizer "
                 "keeps them plus AdamW's two moments; gradients and activations are not saved) and of the model "
                 "a server loads (16-bit; for LoRA the adapters alone), with the seconds to read the checkpoint "
                 "back at each storage class's rated sequential read (calculators.checkpoint). A read time is a "
                 "lower bound: a best-case rate, one stream."),
        columns=(Column("model"), Column("recipe"), Column("trainable params", _billions, "r"),
                 gb_column("weights GB"), gb_column("optimizer GB"), gb_column("checkpoint GB"),
                 gb_column("served model GB", 2), *(Column(f"read s, {n}", _seconds, "r") for n in storage_names)),
        rows=rows,
        assumptions=("GB = 10^9 bytes", "fp32 master weights and AdamW moments for mixed precision; 16-bit for "
                     "pure bf16; fp32 adapters for LoRA", "no compression, no sharding overhead"),
    )


@table("inference-engine-features")
def engine_features() -> Table:
    """What prefix caching, chunked prefill and KV offload change, for one model."""
    spec = get_model(SERVE_MODEL)
    rows = []
    for sequences, shared, unique in ((8, 2000, 500), (32, 4000, 500), (64, 8000, 1000)):
        s = prefix_sharing(spec, sequences=sequences, shared_tokens=shared, unique_tokens=unique)
        rows.append((f"prefix caching: {sequences} requests, {shared:,}-token shared prefix + {unique:,} own",
                     s.without_bytes, s.with_bytes, s.saved_fraction))
    for context in (32768, 131072):
        c = chunked_prefill(spec, context=context, chunk=2048)
        rows.append((f"chunked prefill: one {context:,}-token prompt, 2,048-token chunks (peak allocated)",
                     c.whole_bytes, c.chunked_bytes, 1 - c.chunked_bytes / c.whole_bytes))
    return Table.of(
        caption=(f"{model_name(SERVE_MODEL)}, bf16 weights and KV cache: the memory a static batch needs (without) "
                 "and with a serving engine's prefix caching (the shared prefix's whole blocks stored once, "
                 "16-token blocks) or chunked prefill (prefill temporaries of one chunk instead of the whole "
                 "prompt; calculators.serving). Derived, not measured."),
        columns=(Column("feature and workload"), gib_column("without GiB", grouped=True),
                 gib_column("with GiB", grouped=True), percent_column("saved")),
        rows=rows,
        assumptions=("block size 16 tokens", "SDPA attention", "KV cache of the whole prompt is kept either way"),
    )


@table("inference-kv-offload")
def kv_offload() -> Table:
    """Seconds to bring one request's KV cache back from host RAM over PCIe."""
    spec = get_model(SERVE_MODEL)
    rows = []
    for context in (8192, 32768, 131072):
        size = kv_cache_bytes(spec, batch=1, context=context)
        rows.append((context, size, *(1000 * offload_seconds(size, link=link) for link in ("pcie4", "pcie5"))))
    return Table.of(
        caption=(f"{model_name(SERVE_MODEL)}, bf16 KV cache of one request and the milliseconds to copy it from host "
                 "RAM back to the GPU at a PCIe x16 link's one-direction rate "
                 f"({computed_by(offload_seconds, dotted=True, code=False)}: "
                 "a lower bound; pinned memory, nothing else on the link). Offloading makes the cache fit; each "
                 "return trip costs this much before the request's next token."),
        columns=(number_column("context tokens"), gib_column("KV cache GiB", grouped=True),
                 number_column("ms over PCIe 4.0 x16"), number_column("ms over PCIe 5.0 x16")),
        rows=rows,
    )


@table("cost-idle-serving")
def idle_serving() -> Table:
    """What a GPU kept warm for serving costs per month with no traffic, and how long a cold start reads."""
    rows = []
    for gpu in IDLE_GPUS:
        median = median_cloud_usd_per_gpu_hour(gpu)
        if median is None:
            continue
        rows.append((get_gpu(gpu).name, median, len(offers_for(gpu)), median * HOURS_PER_MONTH))
    return Table.of(
        caption=(f"On-demand price per GPU-hour (median of the offers in price edition {EDITION}) and what one GPU "
                 "kept warm around the clock costs per month whether or not a request arrives (730.5 hours). "
                 "Scale-to-zero avoids this cost and pays a cold start instead (table cost-cold-start)."),
        columns=(Column("GPU"), number_column("median USD/GPU-hour", 2), Column("offers", align="r"),
                 number_column("idle USD/month")),
        rows=rows,
    )


@table("cost-cold-start")
def cold_start() -> Table:
    """Seconds to read a model's weights from storage: the floor of a cold start."""
    rows = []
    for model in ("llama-3.1-8b", "qwen3-32b", "llama-3.3-70b"):
        size = weight_bytes(get_model(model), dtype="bf16")
        rows.append((model_name(model), size,
                     *(size / get_storage(s).sequential_read_bytes_per_s
                       for s in ("nvme-gen4", "net-10gbe", "net-25gbe"))))
    return Table.of(
        caption=("Seconds to read a model's bf16 weights at a storage class's rated sequential read: the floor "
                 "of a cold start after scaling to zero. Container start, CUDA context, engine start-up "
                 "(profiling, graph capture) and the transfer to the GPU come on top."),
        columns=(Column("model"), gb_column("bf16 weights GB"),
                 *map(number_column, ("s from NVMe Gen4", "s over 10 GbE", "s over 25 GbE"))),
        rows=rows,
        assumptions=("GB = 10^9 bytes", "rated sequential read; network: line rate / 8"),
    )


TABLES: dict[str, TableFunction] = declared_tables(globals())
