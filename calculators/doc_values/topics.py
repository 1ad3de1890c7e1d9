"""Numbers in the prose of the sections on checkpoints, serving-engine features, idle cost and Macs.

Each value calls the function its section names (:mod:`calculators.checkpoint`,
:mod:`calculators.serving`, the price, storage and GPU catalogs) with the inputs of the
section's table (:mod:`calculators.doc_tables.topics`).

>>> checkpoint_total("x", model="llama-3.1-8b", precision="bf16-mixed").text
'96.4 GB'
"""

from __future__ import annotations

from calculators.catalog.gpus import get_gpu
from calculators.catalog.models import get_model
from calculators.catalog.prices import median_cloud_usd_per_gpu_hour, purchase_quote
from calculators.catalog.storage import get_storage
from calculators.checkpoint import checkpoint_bytes, read_seconds
from calculators.doc_tables.topics import HOURS_PER_MONTH, SERVE_MODEL
from calculators.inline_values import Value, ValueFunction, bound, declared_values, quantity
from calculators.memory.inference import kv_cache_bytes
from calculators.memory.weights import weight_bytes
from calculators.serving import chunked_prefill, offload_seconds, prefix_sharing


def checkpoint_total(value_id: str, *, model: str, precision: str) -> Value:
    """Bytes of a resumable full fine-tuning checkpoint (weights + AdamW state), GB (derived)."""
    size = checkpoint_bytes(get_model(model), method="full", precision=precision)
    return quantity(value_id, size.total_bytes, digits=1, unit="GB", kind="derived",
                    description=f"Resumable checkpoint of {model}, full fine-tuning, {precision} AdamW: trainable "
                                "weights as the optimizer keeps them plus two moments.")


def checkpoint_read_minutes(value_id: str, *, model: str, storage: str) -> Value:
    """Minutes to read a bf16-mixed full fine-tuning checkpoint at a storage class's rated read (a bound)."""
    size = checkpoint_bytes(get_model(model), method="full", precision="bf16-mixed")
    return quantity(value_id, read_seconds(size.total_bytes, storage=storage) / 60, digits=1, unit="minutes",
                    kind="derived", description=f"Minutes to read {model}'s bf16-mixed AdamW checkpoint from "
                                                f"{get_storage(storage).name} at its rated sequential read.")


def prefix_saved(value_id: str) -> Value:
    """Share of the KV cache that prefix caching saves for 32 requests sharing a 4,000-token prefix, % (derived)."""
    shared = prefix_sharing(get_model(SERVE_MODEL), sequences=32, shared_tokens=4000, unique_tokens=500)
    return quantity(value_id, shared.saved_fraction, digits=0, unit="%", kind="derived",
                    description=f"{SERVE_MODEL}: 32 requests with a 4,000-token shared prefix and 500 tokens each.")


def chunked_saved(value_id: str, *, context: int) -> Value:
    """Share of the prefill peak that 2,048-token chunks save on one long prompt, % (derived)."""
    c = chunked_prefill(get_model(SERVE_MODEL), context=context, chunk=2048)
    return quantity(value_id, 1 - c.chunked_bytes / c.whole_bytes, digits=0, unit="%", kind="derived",
                    description=f"{SERVE_MODEL}: peak allocated of a {context:,}-token prompt, whole against "
                                "2,048-token chunks.")


def offload_ms(value_id: str, *, context: int, link: str) -> Value:
    """Milliseconds to copy one request's bf16 KV cache back from host RAM (a bound)."""
    size = kv_cache_bytes(get_model(SERVE_MODEL), batch=1, context=context)
    return quantity(value_id, offload_seconds(size, link=link) * 1000, digits=0, unit="ms", kind="derived",
                    description=f"{SERVE_MODEL}: one {context:,}-token request's KV cache over {link}, one direction.")


def idle_month(value_id: str, *, gpu: str) -> Value:
    """USD a GPU kept warm costs per month at the median on-demand offer (derived from the price catalog)."""
    median = median_cloud_usd_per_gpu_hour(gpu)
    if median is None:
        raise KeyError(f"no on-demand offer for {gpu}")
    return quantity(value_id, median * HOURS_PER_MONTH, digits=0, unit="USD", kind="derived",
                    description=f"{get_gpu(gpu).name} at the median on-demand price, 730.5 hours a month.")


def cold_start_s(value_id: str, *, model: str, storage: str) -> Value:
    """Seconds to read a model's bf16 weights at a storage class's rated read: the floor of a cold start."""
    size = weight_bytes(get_model(model), dtype="bf16")
    return quantity(value_id, size / get_storage(storage).sequential_read_bytes_per_s, digits=0, unit="s",
                    kind="derived", description=f"{model} bf16 weights read from {get_storage(storage).name}.")


def bandwidth_ratio(value_id: str, *, gpu: str, against: str) -> Value:
    """Memory bandwidth of one GPU over another's (spec ratio): what bounds decoding speed."""
    ratio = get_gpu(gpu).memory_bandwidth_bytes_per_s / get_gpu(against).memory_bandwidth_bytes_per_s
    return quantity(value_id, ratio, digits=2, unit="x", kind="spec",
                    description=f"{get_gpu(gpu).name} memory bandwidth over {get_gpu(against).name}'s (GPU catalog).")


def gpu_bandwidth(value_id: str, *, gpu: str) -> Value:
    """A catalog GPU's memory bandwidth, GB/s (spec)."""
    return quantity(value_id, get_gpu(gpu).memory_bandwidth_bytes_per_s, digits=0, unit="GB/s",
                    kind="spec", description=f"Memory bandwidth of the {get_gpu(gpu).name} (GPU catalog).")


def quote_end(value_id: str, *, gpu: str, end: str) -> Value:
    """One end of a catalog purchase quote, USD (spec: a dated street price)."""
    quote = purchase_quote(gpu)
    if quote is None:
        raise KeyError(f"no purchase quote for {gpu}")
    return quantity(value_id, quote.usd_low if end == "low" else quote.usd_high, digits=0, unit="USD", kind="spec",
                    description=f"{end} end of the purchase quote for the {get_gpu(gpu).name}: {quote.source.title}.")


VALUES: dict[str, ValueFunction] = declared_values(globals(), {
    "cost-pro6000-quote-low": bound(quote_end, gpu="rtx-pro-6000-blackwell", end="low"),
    "cost-pro6000-quote-high": bound(quote_end, gpu="rtx-pro-6000-blackwell", end="high"),
    "checkpoint-8b-mixed": bound(checkpoint_total, model="llama-3.1-8b", precision="bf16-mixed"),
    "checkpoint-70b-mixed": bound(checkpoint_total, model="llama-3.1-70b", precision="bf16-mixed"),
    "checkpoint-70b-hdd-minutes": bound(checkpoint_read_minutes, model="llama-3.1-70b", storage="hdd"),
    "checkpoint-70b-nvme-minutes": bound(checkpoint_read_minutes, model="llama-3.1-70b", storage="nvme-gen4"),
    "serving-prefix-saved": bound(prefix_saved),
    "serving-chunked-32k-saved": bound(chunked_saved, context=32768),
    "serving-chunked-128k-saved": bound(chunked_saved, context=131072),
    "serving-offload-128k-pcie5": bound(offload_ms, context=131072, link="pcie5"),
    "cost-idle-h100-month": bound(idle_month, gpu="h100-sxm"),
    "cost-idle-l4-month": bound(idle_month, gpu="l4"),
    "cost-cold-start-70b-10gbe": bound(cold_start_s, model="llama-3.3-70b", storage="net-10gbe"),
    "cost-cold-start-70b-nvme": bound(cold_start_s, model="llama-3.3-70b", storage="nvme-gen4"),
    "mac-m4-max-bandwidth": bound(gpu_bandwidth, gpu="m4-max"),
    "mac-vs-4090-bandwidth": bound(bandwidth_ratio, gpu="m4-max", against="rtx-4090"),
})
