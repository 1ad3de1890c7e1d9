"""Tables of the GPU catalog on the Hardware pages: the key numbers (docs/hardware/index.md), the sparse
rates, ridge points and segments (docs/hardware/compute.md), the catalog and its sources
(docs/hardware/catalog.md) and the Apple silicon table (docs/hardware/apple.md).

Every cell comes from :mod:`calculators.catalog.gpus` (spec figures with their sources);
what fits on each GPU, and the guides' claims, are in :mod:`calculators.doc_tables.hardware_fit`. Derived columns (ratios) are labelled as
derived in their captions; nothing here estimates speed or time.

>>> table = catalog()
>>> table.columns[:3]
('GPU', 'segment', 'memory GiB')
>>> [row[0] for row in table.rows][:2]
['GeForce RTX 3090', 'GeForce RTX 4090']
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import fields

from calculators.catalog.gpus import GPU, all_gpus, get_gpu
from calculators.columns import Column, gb_column, gib_column, number_column, tflops_column
from calculators.tables import Table, TableFunction, declared_tables, table
from calculators.units import gb, gib, number

SEGMENTS = ("consumer", "workstation", "datacenter", "apple")


# --------------------------------------------------------------------------- formatting
def catalog_as_of() -> str:
    """The catalog's as-of date: the latest ``as_of`` among the records' sources."""
    return max(gpu.source.as_of for gpu in all_gpus())


def _range(values: Iterable[float | None], fmt: Callable[[float], str]) -> str:
    known = sorted(v for v in values if v is not None)
    if not known:
        return "unknown"
    low, high = fmt(known[0]), fmt(known[-1])
    return low if low == high else f"{low}–{high}"


def ordered_gpus() -> list[GPU]:
    """GPUs by segment (consumer, workstation, datacenter, Apple), then memory, then name."""
    return sorted(all_gpus(), key=lambda g: (SEGMENTS.index(g.segment), g.memory_bytes, g.name))


def link_cell(gpu: GPU) -> str:
    """The GPU's GPU-to-GPU link as a table cell."""
    if gpu.interconnect is None:
        return "—"
    if gpu.nvlink_bandwidth_bytes_per_s is None:
        return gpu.interconnect
    return f"{gpu.interconnect} ({gb(gpu.nvlink_bandwidth_bytes_per_s, 0)} GB/s)"


def yes_no(value: bool | None) -> str:
    """'yes', 'no' or 'unknown'."""
    return "unknown" if value is None else ("yes" if value else "no")


def ridge_flop_per_byte(flop_per_s: float | None, bandwidth_bytes_per_s: float) -> float | None:
    """Arithmetic intensity (FLOP per byte of DRAM traffic) at which a rate-limited kernel turns compute-bound.

    Formula: ``dense FLOP/s / memory bytes/s`` (the roofline's ridge point). Derived from spec rates.

    >>> round(ridge_flop_per_byte(989.4e12, 3.35e12) or 0.0, 1)  # H100 SXM, BF16
    295.3
    """
    return None if flop_per_s is None else flop_per_s / bandwidth_bytes_per_s


# --------------------------------------------------------------------------- tables
@table("hardware-key-numbers")
def key_numbers() -> Table:
    """Five headline figures of the catalog, each with the GPU it belongs to."""
    gpus = all_gpus()
    biggest = max(gpus, key=lambda g: g.memory_bytes)
    fastest = max(gpus, key=lambda g: g.memory_bandwidth_bytes_per_s)
    compute = max((g for g in gpus if g.bf16_dense_flop_per_s), key=lambda g: g.bf16_dense_flop_per_s or 0.0)
    consumer = max((g for g in gpus if g.segment == "consumer"), key=lambda g: g.memory_bytes)
    h100 = get_gpu("h100-sxm")
    ridge = ridge_flop_per_byte(h100.bf16_dense_flop_per_s, h100.memory_bandwidth_bytes_per_s)
    rows = (
        ("Largest memory on one GPU", gib(biggest.memory_bytes, 0), "GiB", biggest.name,
         biggest.source_of("memory_bytes").kind, "GPU.memory_bytes"),
        ("Largest consumer-card memory", gib(consumer.memory_bytes, 0), "GiB", consumer.name,
         consumer.source_of("memory_bytes").kind, "GPU.memory_bytes"),
        ("Highest memory bandwidth", gb(fastest.memory_bandwidth_bytes_per_s, 0), "GB/s", fastest.name,
         fastest.source_of("memory_bandwidth_bytes_per_s").kind, "GPU.memory_bandwidth_bytes_per_s"),
        ("Highest dense BF16 rate", number((compute.bf16_dense_flop_per_s or 0.0) / 1e12, 1), "TFLOPS", compute.name,
         compute.source_of("bf16_dense_flop_per_s").kind, "GPU.bf16_dense_flop_per_s"),
        ("BF16 ridge point (dense FLOP/s ÷ bandwidth)", number(ridge or 0.0), "FLOP/byte", h100.name,
         "derived", "hardware.ridge_flop_per_byte"),
    )
    return Table.key_numbers(
        rows, columns=("quantity", "value", "unit", "GPU", "kind", "where"),
        caption=(f"Headline figures of the GPU catalog (as of {catalog_as_of()}). 'kind' is the catalog's own "
                 "label for the figure's source: spec (datasheet or whitepaper), derived (arithmetic on spec "
                 "figures, e.g. half of a sparsity headline)."))


@table("hardware-catalog")
def catalog() -> Table:
    """The GPU catalog, one row per SKU, in base units converted for display."""
    rows = (
        (
            gpu.name, gpu.segment, gpu.memory_bytes, gpu.memory_type or "unknown", gpu.memory_bandwidth_bytes_per_s,
            gpu.bf16_dense_flop_per_s, gpu.fp8_dense_flop_per_s, gpu.tdp_watts, gpu.ecc, link_cell(gpu),
            "—" if gpu.pcie_generation is None else f"Gen {gpu.pcie_generation} x{gpu.pcie_lanes}",
            gpu.launch_price_usd,
        )
        for gpu in ordered_gpus()
    )
    return Table.of(
        caption=(f"The GPU catalog (calculators.catalog.gpus, as of {catalog_as_of()}). Every value carries a "
                 "source: the record's source for most fields, GPU.source_of(field) for the rest (see the "
                 "hardware-sources table and `mlhw gpus --json`). Memory in GiB (2^30 bytes); bandwidth in "
                 "decimal GB/s as vendors quote it; TFLOPS are dense tensor-core rates (never the 2:4 sparsity "
                 "headline; FP32 accumulation on GeForce/RTX cards). '—' in a rate column: no such tensor path "
                 "or no published figure; '—' under GPU-to-GPU link: none, or none in the cited documents; link "
                 "bandwidth is both directions summed. Launch price is the vendor's launch MSRP, 'unknown' where "
                 "none was published: never a street price."),
        columns=(Column("GPU"), Column("segment"), gib_column("memory GiB", 0, grouped=True), Column("memory type"),
                 gb_column("bandwidth GB/s", 0), tflops_column("BF16 dense TFLOPS"), tflops_column("FP8 dense TFLOPS"),
                 number_column("TDP W", missing="unknown"),
                 Column("ECC", yes_no), Column("GPU-to-GPU link"), Column("PCIe"),
                 number_column("launch price USD", missing="unknown")),
        rows=rows,
        sources=tuple(sorted({gpu.source.url for gpu in ordered_gpus()})),
    )


@table("hardware-sparse")
def sparse_notes() -> Table:
    """Dense rates next to what the datasheet's headline (sparse) figure is."""
    rows = (
        (
            gpu.name, gpu.bf16_dense_flop_per_s, gpu.fp16_dense_flop_per_s, gpu.fp8_dense_flop_per_s,
            gpu.source_of("bf16_dense_flop_per_s").kind if gpu.bf16_dense_flop_per_s is not None else "—",
            gpu.sparse_figures_note or "no sparse figure quoted",
        )
        for gpu in ordered_gpus()
    )
    return Table.of(
        caption=(f"Dense tensor rates and the datasheet's sparse headline, from the catalog (as of "
                 f"{catalog_as_of()}). 'BF16 kind' is spec where the document prints the dense figure and "
                 "derived where the catalog halved a 2:4-sparsity headline. FP16 is with FP32 accumulation. "
                 "'—': no such tensor path or no published figure."),
        columns=(Column("GPU"), *(tflops_column(f"{dtype} dense TFLOPS") for dtype in ("BF16", "FP16", "FP8")),
                 Column("BF16 kind"), Column("datasheet sparse note (sparse_figures_note)")),
        rows=rows,
    )


@table("hardware-ridge")
def ridge() -> Table:
    """Derived ratios: ridge points and tensor-vs-FP32 rate, per GPU with known rates."""
    rows = []
    for gpu in ordered_gpus():
        bw = gpu.memory_bandwidth_bytes_per_s
        bf16 = ridge_flop_per_byte(gpu.bf16_dense_flop_per_s, bw)
        fp8 = ridge_flop_per_byte(gpu.fp8_dense_flop_per_s, bw)
        tensor_vs_fp32 = (None if gpu.bf16_dense_flop_per_s is None or gpu.fp32_flop_per_s is None
                          else gpu.bf16_dense_flop_per_s / gpu.fp32_flop_per_s)
        rows.append((gpu.name, bw, gpu.bf16_dense_flop_per_s, bf16, fp8, tensor_vs_fp32))
    # By the ridge point as shown (whole FLOP/byte), then by name.
    rows.sort(key=lambda r: (r[3] is None, -round(r[3]) if r[3] is not None else 0, r[0]))
    return Table.of(
        caption=(f"Derived from catalog spec rates (as of {catalog_as_of()}), not measured. Ridge point = dense "
                 "FLOP/s ÷ memory bytes/s: a kernel that does fewer FLOP per byte it reads from memory is "
                 "limited by bandwidth on that GPU, more is limited by compute. 'BF16 ÷ FP32' is the dense BF16 "
                 "tensor rate over the non-tensor FP32 rate. Rows sorted by BF16 ridge point; '—': a rate is "
                 "unknown or absent. These are spec-rate ratios, bounds rather than achieved speeds."),
        columns=(Column("GPU"), gb_column("bandwidth GB/s", 0), tflops_column("BF16 dense TFLOPS"),
                 number_column("BF16 ridge FLOP/byte", missing="—"),
                 number_column("FP8 ridge FLOP/byte", missing="—"),
                 number_column("BF16 ÷ FP32 rate", 1, missing="—")),
        rows=rows,
    )


@table("hardware-segments")
def segments() -> Table:
    """Consumer, workstation, datacenter and Apple parts side by side, from catalog fields."""
    rows = []
    for segment in SEGMENTS:
        group = [g for g in all_gpus() if g.segment == segment]
        ecc = {v: sum(1 for g in group if g.ecc is v) for v in (True, False, None)}
        ecc_text = ", ".join(f"{label} {count}" for label, count in
                             (("yes", ecc[True]), ("no", ecc[False]), ("unknown", ecc[None])) if count)
        links = sum(1 for g in group if g.interconnect is not None)
        rows.append((
            segment, str(len(group)), _range((g.memory_bytes for g in group), lambda value: gib(value, 0)),
            _range((g.memory_bandwidth_bytes_per_s for g in group), lambda value: gb(value, 0)), ecc_text,
            f"{links} of {len(group)}", _range((g.tdp_watts for g in group), number),
            f"{sum(1 for g in group if g.launch_price_usd is not None)} of {len(group)}",
        ))
    return Table(
        caption=(f"Catalog GPUs grouped by GPU.segment (as of {catalog_as_of()}). Ranges are min–max over the "
                 "group; Apple memory is the largest unified-memory configuration, shared with the CPU. 'GPU-to-GPU "
                 "link' counts records with an interconnect field (NVLink, NVLink bridge or Infinity Fabric)."),
        columns=("segment", "GPUs", "memory GiB", "bandwidth GB/s", "ECC memory (count)", "GPU-to-GPU link",
                 "TDP W", "launch price known"),
        align=("l", "r", "r", "r", "l", "l", "r", "l"),
        rows=tuple(rows),
    )


@table("hardware-apple")
def apple() -> Table:
    """Apple unified-memory parts: what the catalog knows and what it does not."""
    rows = (
        (gpu.name, gpu.memory_bytes, gpu.memory_bandwidth_bytes_per_s, gpu.bf16_dense_flop_per_s, " ".join(gpu.notes))
        for gpu in ordered_gpus() if gpu.segment == "apple"
    )
    return Table.of(
        caption=(f"Apple parts in the catalog (as of {catalog_as_of()}), with the record's notes verbatim. "
                 "Memory is the largest configuration, in GiB, and is shared by CPU and GPU."),
        columns=(Column("chip"), gib_column("unified memory GiB", 0, grouped=True), gb_column("bandwidth GB/s", 0),
                 tflops_column("BF16 TFLOPS", missing="unknown"), Column("notes")),
        rows=rows,
    )


@table("hardware-sources")
def sources() -> Table:
    """Per GPU, the primary document and which fields cite another one."""
    field_order = [f.name for f in fields(GPU)]
    rows = tuple(
        (gpu.name, gpu.source.title, f"<{gpu.source.url}>", gpu.source.as_of,
         ", ".join(sorted((name for name, _ in gpu.field_sources), key=field_order.index)) or "none")
        for gpu in ordered_gpus()
    )
    return Table(
        caption=(f"Where each catalog record comes from (GPU.source; catalog as of {catalog_as_of()}). 'as of' is "
                 "the document's own date where it prints one, otherwise the date it was read. Fields listed last "
                 "cite another document: GPU.source_of(field) returns it, with its kind (spec, derived)."),
        columns=("GPU", "document", "URL", "as of", "fields from other documents"),
        align=("l", "l", "l", "l", "l"),
        rows=rows,
    )


TABLES: dict[str, TableFunction] = declared_tables(globals())
