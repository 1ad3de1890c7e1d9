"""The GPU record: one accelerator SKU with its datasheet figures in base units, and helpers for sources.

The records themselves are in the vendor modules of this package; :mod:`calculators.catalog.gpus`
assembles them and is the module to import. Units are base units: bytes, bytes/s, FLOP/s,
watts, USD; rates are *dense* (the module docstring of :mod:`calculators.catalog.gpus`).

>>> derived("half of 4.5 PFLOPS sparse", Source("HGX", "https://example.org", "2026-11-21")).kind
'derived'
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields

from calculators.catalog.sources import Source
from calculators.errors import InputError
from calculators.units import GIB

READ = "2026-11-21"  # the date the documents of the catalog were read

#: The note every HBM record carries on its capacity.
HBM_BINARY = ("Capacity is binary GiB: HBM stacks come in power-of-two densities, and "
              "nvidia-smi reports slightly less than the GiB figure after driver reservations.")


def derived(title: str, base: Source) -> Source:
    """A :class:`Source` of kind ``"derived"``: arithmetic (``title``) on the figures of ``base``."""
    return Source(f"{title} (from {base.title})", base.url, base.as_of, kind="derived")


@dataclass(frozen=True, kw_only=True)
class GPU:
    """One accelerator SKU with its datasheet figures in base units.

    Attributes:
        id: Short slug, e.g. ``"h100-sxm"``.
        name: Vendor name verbatim, e.g. ``"H100 SXM 80GB"``.
        vendor: ``"NVIDIA"``, ``"AMD"`` or ``"Apple"``.
        architecture: Vendor architecture name, e.g. ``"Hopper"``.
        segment: ``"consumer"``, ``"workstation"``, ``"datacenter"`` or ``"apple"``.
        memory_bytes: Memory capacity in bytes (binary GiB, see module docstring).
            For Apple parts, the largest unified-memory configuration.
        memory_type: e.g. ``"HBM3"``; ``None`` if the vendor does not say.
        memory_bandwidth_bytes_per_s: Peak DRAM bandwidth, bytes/s (decimal, as quoted).
        bf16_dense_flop_per_s: Dense BF16 tensor rate, FLOP/s; never the sparse figure.
            ``None`` where the hardware has no BF16 tensor path or no figure is published.
        fp16_dense_flop_per_s: Dense FP16 tensor rate with FP32 accumulation, FLOP/s.
        fp8_dense_flop_per_s: Dense FP8 tensor rate (FP32 accumulation), FLOP/s; ``None``
            where there is no FP8.
        fp32_flop_per_s: Non-tensor FP32 rate, FLOP/s.
        sparse_figures_note: What the headline (sparse) figures are, if any.
        interconnect: GPU-to-GPU link, e.g. ``"NVLink 4"``; ``None`` for none or unknown.
        nvlink_bandwidth_bytes_per_s: GPU-to-GPU link bandwidth per GPU, bytes/s, as
            vendors quote it: BIDIRECTIONAL total (both directions summed). For AMD this
            is the Infinity Fabric aggregate. ``None`` without such a link.
        pcie_generation: PCIe generation of the host link.
        pcie_lanes: PCIe lane count of the host link.
        tdp_watts: Maximum board/module power (TDP or TBP), watts.
        ecc: Whether the memory has ECC.
        launch_price_usd: Vendor-published launch price (MSRP), USD; ``None`` where the
            vendor published none. Never a street price.
        launch_date: ISO date of announcement or release, as the cited source gives it.
        source: Primary document for the record.
        field_sources: ``(field_name, Source)`` pairs for values taken from elsewhere.
        notes: Caveats in plain words.
        compute_capability: NVIDIA's CUDA compute capability (``"8.0"``, ``"9.0"``), which
            fixes the tensor-core formats the GPU runs (:mod:`calculators.dtype_support`);
            ``None`` for AMD and Apple parts, which have none.
        fp4_dense_flop_per_s: Dense FP4 tensor rate (NVFP4/MXFP4 on Blackwell, MXFP4 on CDNA 4),
            FLOP/s; ``None`` where the GPU has no FP4 path or the vendor prints no figure.
        nvlink_domain_gpus: GPUs one NVLink domain joins at ``nvlink_bandwidth_bytes_per_s``
            through NVLink switches (72 in a GB200 NVL72 rack); ``None`` where the record does
            not say (an HGX board's eight, or a bridged pair).
        sustained_bf16_flop_per_s: The measured dense 16-bit (BF16, or FP16 without BF16) matrix-multiply rate
            the GPU sustains, FLOP/s: continuous GEMMs at the clock power management holds under them, below
            the boost clock the datasheet rate assumes. Filled in by :mod:`calculators.catalog.gpus` from
            :mod:`~calculators.catalog.gpu_records.matmul_rates` (each with its measurement, and why the other
            GPUs have none); ``None`` elsewhere (the datasheet rate is then used). Inference compute is timed
            at it (:func:`calculators.performance.flops.sustained_rate_flop_per_s`).
        sustained_fp8_flop_per_s: The same for dense FP8 matrix multiplies.
        fp16_accumulate_dense_flop_per_s: Dense FP16 tensor rate with FP16 accumulation, FLOP/s, where the
            vendor prints one above the FP32-accumulate rate (GeForce cards run it at twice that rate); ``None``
            elsewhere (the same rate as ``fp16_dense_flop_per_s``). Only an engine whose 16-bit matrix multiplies
            accumulate in FP16 reaches it (:attr:`calculators.catalog.engines.Engine.fp16_accumulate`).
    """

    id: str
    name: str
    vendor: str
    architecture: str
    segment: str
    memory_bytes: int
    memory_type: str | None
    memory_bandwidth_bytes_per_s: float
    bf16_dense_flop_per_s: float | None
    fp16_dense_flop_per_s: float | None
    fp8_dense_flop_per_s: float | None
    fp32_flop_per_s: float | None
    sparse_figures_note: str | None = None
    interconnect: str | None = None
    nvlink_bandwidth_bytes_per_s: float | None = None
    pcie_generation: int | None = None
    pcie_lanes: int | None = None
    tdp_watts: float | None = None
    ecc: bool | None = None
    launch_price_usd: float | None = None
    launch_date: str | None = None
    source: Source
    field_sources: tuple[tuple[str, Source], ...] = ()
    notes: tuple[str, ...] = field(default=())
    compute_capability: str | None = None
    fp4_dense_flop_per_s: float | None = None
    nvlink_domain_gpus: int | None = None
    sustained_bf16_flop_per_s: float | None = None
    sustained_fp8_flop_per_s: float | None = None
    fp16_accumulate_dense_flop_per_s: float | None = None

    @property
    def memory_gib(self) -> float:
        """Memory capacity in GiB (2**30 bytes)."""
        return self.memory_bytes / GIB

    def source_of(self, field_name: str) -> Source:
        """The document a field's value comes from: its own entry, else the record's ``source``.

        Args:
            field_name: A field of :class:`GPU`, e.g. ``"bf16_dense_flop_per_s"``.

        Returns:
            The :class:`Source` for that field.

        Raises:
            InputError: ``field_name`` is not a field of :class:`GPU`.
        """
        names = [f.name for f in fields(self)]
        if field_name not in names:
            raise InputError("field", field_name, f"one of: {', '.join(names)}")
        for name, src in self.field_sources:
            if name == field_name:
                return src
        return self.source
