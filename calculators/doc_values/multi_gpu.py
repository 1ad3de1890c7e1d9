"""Numbers in the prose of the Multi-GPU pages: docs/multi-gpu/index.md, docs/multi-gpu/sharded-fit.md,
docs/multi-gpu/interconnect.md and docs/multi-gpu/links.md.

Link and memory figures are read from the GPU and link catalogs (``spec``); step times,
ratios and shares come from :func:`calculators.parallel.step.step_communication` and
:func:`calculators.memory.training.training_memory` with the settings the sentence names
(those of the pages' tables and worked examples).

>>> mgpu_h100_nvlink().text
'900 GB/s'
>>> ic_zero3_ddp_traffic_ratio().text
'1.00'
"""

from __future__ import annotations

from statistics import median

from calculators.catalog.gpus import get_gpu
from calculators.catalog.interconnects import get_interconnect
from calculators.catalog.utilisation import predicted_utilisation
from calculators.catalog.models import get_model
from calculators.doc_tables.multi_gpu import JOB as ZERO_JOB
from calculators.inline_values import Value, ValueFunction, bound, declared_values, quantity, value
from calculators.memory.training import training_memory
from calculators.parallel.collectives import bus_factor
from calculators.parallel.links import (
    LINK_EFFICIENCY,
    LINK_EFFICIENCY_BASIS,
    latency_per_ring_step_s,
)
from calculators.parallel.measured import MEASUREMENTS
from calculators.parallel.step import (
    DDP_BUCKET_BYTES,
    StepCommunication,
    step_communication,
)
from calculators.speed_accuracy.training import scored_figures
from calculators.tables import computed_by

#: The worked example of docs/multi-gpu/interconnect.md (its pycon block uses the same inputs).
EXAMPLE_MODEL, EXAMPLE_GPU, EXAMPLE_GPUS, EXAMPLE_SEQ = "llama-3-70b", "h100-sxm", 8, 4096
#: The traffic comparison of the ZeRO-3 pitfall: Llama 3 8B on 8 GPUs, the step_communication defaults.
TRAFFIC_MODEL, TRAFFIC_GPUS = "llama-3-8b", 8
#: Where the per-ring-step latencies come from (this page's and the performance page's).
SMALL_MESSAGE_RUNS = "nccl-tests all_reduce_perf at its smallest size (NVIDIA/nccl issues 1259, 1530, 1439)"


# --------------------------------------------------------------------------- catalog figures (spec)
def gpu_link(value_id: str, *, gpu: str) -> Value:
    """A GPU's catalog NVLink figure, both directions summed, GB/s (spec)."""
    record = get_gpu(gpu)
    if record.nvlink_bandwidth_bytes_per_s is None:
        raise ValueError(f"{record.name} has no NVLink figure in the catalog")
    return quantity(value_id, record.nvlink_bandwidth_bytes_per_s, digits=0, unit="GB/s", kind="spec",
                    description=f"{record.name}: {record.interconnect}, GPU-to-GPU bandwidth, both directions summed "
                                "(GPU catalog).")


@value("mgpu-h100-nvlink")
def mgpu_h100_nvlink(value_id: str) -> Value:
    """H100 SXM NVLink figure of the GPU catalog (900 GB/s both directions)."""
    return gpu_link(value_id, gpu="h100-sxm")


def link_figure(value_id: str, *, link: str, per_direction: bool = False) -> Value:
    """A link catalog figure, both directions summed or per direction, GB/s (spec)."""
    record = get_interconnect(link)
    amount = record.per_direction_bytes_per_s if per_direction else record.bidirectional_bytes_per_s
    which = "per direction" if per_direction else "both directions summed"
    return quantity(value_id, amount, digits=0, unit="GB/s", kind="spec",
                    description=f"{record.name}: {record.scope}, {which} (link catalog, {record.source.title}).")


def gpu_memory(value_id: str, *, gpu: str) -> Value:
    """A GPU's memory from the catalog, GiB (spec)."""
    record = get_gpu(gpu)
    return quantity(value_id, record.memory_bytes, digits=0, unit="GiB", kind="spec",
                    description=f"Memory of one {record.name} (GPU catalog).")


# --------------------------------------------------------------------------- memory (sharded-fit.md)
def seventy_on_eight_total(value_id: str, *, precision: str) -> Value:
    """total_bytes per GPU of Llama 3 70B full fine-tuning on 8 GPUs, ZeRO-3, checkpointing on, GiB."""
    spec = get_model("llama-3-70b")
    estimate = training_memory(spec, **{**ZERO_JOB, "precision": precision}, gpus=8, zero=3, grad_checkpointing=True)
    return quantity(value_id, estimate.total_bytes, digits=1, unit="GiB", kind="derived",
                    description=f"total_bytes per GPU of {spec.name} full fine-tuning in {precision} with AdamW on 8 "
                                "GPUs under ZeRO-3, gradient checkpointing on, micro-batch 1 x 2048.",
                    assumptions=(("runtime overhead as training_memory adds it (CUDA context, cuBLAS workspace, "
                                 "allocator slack; assumed)"),))


# --------------------------------------------------------------------------- model inputs (interconnect.md)
def link_kind_efficiency(value_id: str, *, kind: str) -> Value:
    """The one link model's efficiency for a link kind, derived from how the kind moves its bytes (none is fitted)."""
    return quantity(value_id, LINK_EFFICIENCY[kind], digits=2, unit="", kind="derived",
                    description=f"Fraction of the per-direction bandwidth a large collective reaches on a {kind} link "
                                "(calculators.parallel.links.LINK_EFFICIENCY, derived, not fitted).",
                    assumptions=(LINK_EFFICIENCY_BASIS[kind],))


def link_step_latency(value_id: str, *, link: str) -> Value:
    """Fixed cost of one ring step on a link, microseconds (derived from published small-message runs)."""
    record = get_interconnect(link)
    return quantity(value_id, latency_per_ring_step_s(record), scale=1e-6, digits=1, unit="µs", kind="derived",
                    description=f"Per-ring-step latency on {record.name}: a published small-message all-reduce time "
                                "over its 2 (N-1) ring steps.", assumptions=(SMALL_MESSAGE_RUNS,))


@value("ic-ddp-bucket")
def ic_ddp_bucket(value_id: str) -> Value:
    """PyTorch DDP's default gradient bucket, MiB (spec, the ``bucket_cap_mb`` default)."""
    return quantity(value_id, DDP_BUCKET_BYTES, digits=0, unit="MiB", kind="spec",
                    description="PyTorch DistributedDataParallel's default bucket_cap_mb, as "
                                "calculators.parallel.step.DDP_BUCKET_BYTES.")


def step_mfu(value_id: str) -> Value:
    """The utilisation step_communication takes for the worked example's compute (fitted on published runs)."""
    gpu, tokens = get_gpu(EXAMPLE_GPU), EXAMPLE_SEQ  # one sequence per GPU
    return quantity(value_id, predicted_utilisation(gpu, micro_batch_tokens=tokens), digits=2, unit="", kind="derived",
                    description=f"Utilisation of the dense BF16 rate fitted on published runs for the "
                                f"{gpu.name} at {tokens:,} tokens per micro-batch "
                                "(calculators.catalog.utilisation): what step_communication and train-time take "
                                "when no mfu is given.",
                    assumptions=(f"{computed_by(predicted_utilisation, dotted=True, code=False)}, full training, "
                                 "no recomputation",))


# --------------------------------------------------------------------------- nccl-tests check
@value("ic-nccl-median-error")
def ic_nccl_median_error(value_id: str) -> Value:
    """Median |error| of the link model on the published collectives, leave-one-source-out, percent."""
    errors = sorted(abs(r["estimated"] / r["measured"] - 1) for r in scored_figures() if r["category"] == "collectives")
    return quantity(value_id, median(errors), digits=0, unit="%", kind="derived",
                    description="Median absolute error of the link model's busbw against the published nccl-tests "
                                "figures, each efficiency refitted without the figure's own source.",
                    assumptions=(computed_by(scored_figures, dotted=True, code=False),))


@value("ic-host-bound-efficiency")
def ic_host_bound_efficiency(value_id: str) -> Value:
    """Mean efficiency implied by the runs whose traffic crosses the host (H100 PCIe bridge pair, 8 x RTX 5090)."""
    rows = [m for m in MEASUREMENTS if m.interconnect in ("pcie5", "nvlink-bridge-h100-pcie")]
    mean = sum(m.implied_efficiency for m in rows) / len(rows)
    return quantity(value_id, mean, digits=1, unit="", kind="derived",
                    description="Mean implied efficiency (measured busbw / per-direction link rate) of the "
                                "8 x RTX 5090 PCIe 5.0 and 2 x H100 PCIe bridge runs.")


@value("ic-pcie5-run-efficiency")
def ic_pcie5_run_efficiency(value_id: str) -> Value:
    """Implied efficiency of the published 8 x RTX 5090 PCIe 5.0 all-reduce run, percent."""
    record = next(m for m in MEASUREMENTS if m.interconnect == "pcie5" and m.gpus == 8)
    return quantity(value_id, record.implied_efficiency, digits=0, unit="%", kind="derived",
                    description=f"Measured busbw over the per-direction link rate, {record.system}.",
                    assumptions=(f"measured figure from {record.source.title}",))


# --------------------------------------------------------------------------- worked example
def _example(link: str) -> StepCommunication:
    return step_communication(get_model(EXAMPLE_MODEL), gpu=EXAMPLE_GPU, gpus=EXAMPLE_GPUS, zero=3,
                              interconnect=link, batch=1, seq=EXAMPLE_SEQ)


_EXAMPLE = ((f"Llama 3 70B, ZeRO-3 on {EXAMPLE_GPUS} x H100 SXM, one {EXAMPLE_SEQ}-token sequence per GPU; "
            "collective efficiency and utilisation at the defaults (fitted)"),)


@value("ic-example-nvlink-share")
def ic_example_nvlink_share(value_id: str) -> Value:
    """Communication over compute of the worked example over NVLink 4, percent."""
    return quantity(value_id, _example("nvlink4").comm_to_compute, digits=0, unit="%", kind="derived",
                    description="Communication time as a share of compute time of the worked example over NVLink 4.",
                    assumptions=_EXAMPLE)


@value("ic-example-pcie-ratio")
def ic_example_pcie_ratio(value_id: str) -> Value:
    """Communication over compute of the worked example over PCIe 5.0 (a ratio)."""
    return quantity(value_id, _example("pcie5").comm_to_compute, digits=1, unit="", kind="derived",
                    description="Communication time over compute time of the worked example over PCIe 5.0 x16.",
                    assumptions=_EXAMPLE)


@value("ic-example-pcie-idle")
def ic_example_pcie_idle(value_id: str) -> Value:
    """Share of the worked example's PCIe step during which the GPUs wait (1 - scaling efficiency), percent."""
    return quantity(value_id, 1 - _example("pcie5").scaling_efficiency, digits=0, unit="%", kind="derived",
                    description="Exposed communication over the whole step of the worked example over PCIe 5.0 x16.",
                    assumptions=_EXAMPLE)


@value("ic-zero3-ddp-traffic-ratio")
def ic_zero3_ddp_traffic_ratio(value_id: str) -> Value:
    """Bytes each GPU sends per step under ZeRO-3 over those under DDP, as step_communication models them."""
    spec = get_model(TRAFFIC_MODEL)

    def sent(zero: int) -> float:
        step = step_communication(spec, gpus=TRAFFIC_GPUS, zero=zero)
        return sum(bus_factor(c.kind, gpus=TRAFFIC_GPUS) * c.buffer_bytes for c in step.collectives)

    return quantity(value_id, sent(3) / sent(0), digits=2, unit="", kind="derived",
                    description=f"Ring traffic per GPU per step, ZeRO-3 over DDP, {spec.name} on {TRAFFIC_GPUS} GPUs: "
                                "fp32 gradients reduced, bf16 weights gathered (the step_communication defaults).")


VALUES: dict[str, ValueFunction] = declared_values(globals(), {
    # docs/multi-gpu/index.md (mgpu-70b-8-*: docs/multi-gpu/sharded-fit.md)
    "mgpu-pcie5": bound(link_figure, link="pcie5"),
    "mgpu-h100-pcie-bridge": bound(gpu_link, gpu="h100-pcie"),
    "mgpu-70b-8-bf16-total": bound(seventy_on_eight_total, precision="bf16"),
    "mgpu-70b-8-mixed-total": bound(seventy_on_eight_total, precision="bf16-mixed"),
    # docs/multi-gpu/interconnect.md (ic-nccl-median-error, ic-host-bound-efficiency: docs/multi-gpu/links.md)
    "ic-nvlink4": bound(link_figure, link="nvlink4"),
    "ic-pcie5": bound(link_figure, link="pcie5"),
    "ic-ndr-per-direction": bound(link_figure, link="ib-ndr", per_direction=True),
    "ic-eff-nvlink": bound(link_kind_efficiency, kind="nvlink"),
    "ic-eff-sharp": bound(link_kind_efficiency, kind="nvlink-sharp"),
    "ic-eff-bridge": bound(link_kind_efficiency, kind="nvlink-bridge"),
    "ic-eff-pcie": bound(link_kind_efficiency, kind="pcie"),
    "ic-eff-network": bound(link_kind_efficiency, kind="infiniband"),
    "ic-latency-nvlink": bound(link_step_latency, link="nvlink4"),
    "ic-latency-pcie": bound(link_step_latency, link="pcie4"),
    "ic-step-mfu": bound(step_mfu),
    "ic-footnote-mfu": bound(step_mfu),
    "ic-h100-memory": bound(gpu_memory, gpu="h100-sxm"),
    "ic-pitfall-nvlink4": bound(link_figure, link="nvlink4"),
    "ic-pitfall-pcie5": bound(link_figure, link="pcie5"),
})
