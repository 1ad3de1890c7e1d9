"""Tables of the interconnect page (docs/multi-gpu/interconnect.md).

Link figures come from :mod:`calculators.catalog.interconnects`; times from
:mod:`calculators.parallel.step`; the measured bus bandwidths from
``tests/data/published_speed/collectives.jsonl`` (quoted, with their sources).
"""

from __future__ import annotations

from calculators.catalog.gpus import get_gpu
from calculators.catalog.interconnects import all_interconnects, get_interconnect
from calculators.catalog.models import READ_ON, get_model, get_model_record
from calculators.parallel.links import fit_link_efficiencies, record_bus_bandwidth_bytes_per_s, record_link_bytes_per_s
from calculators.parallel.step import StepCommunication, step_communication
from calculators.speed_accuracy.training import load, scored_figures
from calculators.tables import Table, TableFunction, computed_by, declared_tables, table
from calculators.units import gb, gib

MODEL = "llama-3-8b"
GPU = "h100-sxm"
GPUS = 8
BATCH, SEQ = 1, 4096
LINKS = ("pcie4", "pcie5", "nvlink3", "nvlink4", "nvlink5")
STAGES = (0, 1, 3)
_AS_OF = max(link.source.as_of for link in all_interconnects())


def _step(link: str, zero: int) -> StepCommunication:
    return step_communication(get_model(MODEL), gpu=GPU, gpus=GPUS, zero=zero, interconnect=link, batch=BATCH,
                              seq=SEQ)


def _assumptions() -> tuple[str, ...]:
    return ("collective efficiency and per-step latency of the one link model (calculators.parallel.links, fitted on "
            "published nccl-tests runs)",
            f"compute: training FLOPs per token (6 x matmul parameters + attention) at the utilisation fitted on "
            f"published runs, {_step('nvlink4', 0).mfu:.3g} for the {get_gpu(GPU).name} at {BATCH * SEQ:,} tokens per "
            "micro-batch (calculators.catalog.utilisation, as train-time)", f"link catalog as of {_AS_OF}")


def _job() -> str:
    return (f"{get_model_record(MODEL).name}, full fine-tuning, {GPUS} GPUs, micro-batch {BATCH} x {SEQ} tokens "
            f"per GPU, compute at the {get_gpu(GPU).name}'s dense BF16 rate, fp32 gradients, bf16 gathered weights")


@table("interconnect-key-numbers")
def key_numbers() -> Table:
    """Headline figures: per-direction rates and one step's all-reduce over PCIe 5 and NVLink 4."""
    pcie, nvlink = get_interconnect("pcie5"), get_interconnect("nvlink4")
    over_pcie, over_nvlink = _step("pcie5", 0), _step("nvlink4", 0)
    rows = (
        (f"{pcie.name}: per direction (PCI-SIG's {gb(pcie.bandwidth_bytes_per_s, 1)} GB/s is both directions)",
         gb(pcie.per_direction_bytes_per_s, 1), "GB/s", computed_by(get_interconnect, dotted=True)),
        (f"{nvlink.name}: per direction (NVIDIA's {gb(nvlink.bandwidth_bytes_per_s, 1)} GB/s is both directions)",
         gb(nvlink.per_direction_bytes_per_s, 1), "GB/s", computed_by(get_interconnect, dotted=True)),
        (f"DDP gradient all-reduce, {get_model_record(MODEL).name}, {GPUS} GPUs over {pcie.name}",
         f"{over_pcie.communication_s * 1e3:,.0f}", "ms", computed_by(step_communication, dotted=True)),
        (f"the same over {nvlink.name}", f"{over_nvlink.communication_s * 1e3:,.0f}", "ms",
         computed_by(step_communication, dotted=True)),
        ("compute of that step (training FLOPs at the fitted utilisation, as train-time)", f"{over_pcie.compute_s * 1e3:,.0f}", "ms",
         computed_by(step_communication, dotted=True)),
    )
    return Table(
        caption=f"Link figures are sourced specs halved or quoted; times are estimates for {_job()}.",
        columns=("quantity", "value", "unit", "function"), align=("l", "r", "l", "l"), rows=rows,
        assumptions=_assumptions())


@table("interconnect-links")
def links() -> Table:
    """The link catalog: the quoted figure, its direction, and both derived figures."""
    rows = tuple(
        (link.name, link.kind, gb(link.bandwidth_bytes_per_s, 1), link.direction, gb(link.per_direction_bytes_per_s, 1),
         gb(link.bidirectional_bytes_per_s, 1), link.scope, f"[{link.source.title.split(' (')[0]}]({link.source.url})",
         link.source.as_of)
        for link in all_interconnects())
    return Table(
        caption=("Each link's headline figure exactly as its source quotes it (spec), whether that figure sums both "
                 "directions, and the per-direction and bidirectional figures derived from it. Raw signalling "
                 "rates: encoding and protocol overheads are not subtracted."),
        columns=("link", "kind", "quoted GB/s", "quoted as", "per direction GB/s", "both directions GB/s", "scope",
                 "source", "as of"),
        align=("l", "l", "r", "l", "r", "r", "l", "l", "l"), rows=rows)


@table("interconnect-claim-pcie-nvlink")
def claim_check() -> Table:
    """The guides' 'PCIe Gen 5 tops out at 128 GB/s, NVLink 900 GB/s' claim, per direction and summed."""
    pcie, nvlink = get_interconnect("pcie5"), get_interconnect("nvlink4")
    rows = []
    for basis, attribute in (("both directions summed", "bidirectional_bytes_per_s"),
                             ("per direction (what a ring collective uses)", "per_direction_bytes_per_s")):
        p, n = getattr(pcie, attribute), getattr(nvlink, attribute)
        rows.append((basis, gb(p, 1), gb(n, 1), f"{n / p:.2f}"))
    return Table(
        caption=(f"{pcie.name} against {nvlink.name}, from the link catalog. The claim's two figures are both "
                 "bidirectional totals, so they compare like with like; a ring all-reduce sees the per-direction "
                 "row."),
        columns=("basis", f"{pcie.name} GB/s", f"{nvlink.name} GB/s", "ratio"), align=("l", "r", "r", "r"),
        rows=tuple(rows), assumptions=(f"link catalog as of {_AS_OF}",))


@table("interconnect-nccl-validation")
def nccl_validation() -> Table:
    """The link model's large-message busbw against published nccl-tests figures, leave-one-source-out."""
    scored = {r["figure_id"]: r for r in scored_figures() if r["category"] == "collectives"}
    rows = []
    for record in load("collectives"):
        row = scored[record["id"]]
        link = record_link_bytes_per_s(record)
        measured = float(record["measured"])
        rows.append((record["id"], str(record["gpus"]), record["link_kind"], gb(link, 1), gb(measured, 1),
                     gb(row["estimated"], 1), f"{row['estimated'] / measured - 1:+.0%}",
                     f"{row['naive_roofline'] / measured - 1:+.0%}", f"{measured / link:.2f}",
                     f"[{record['citation']['title'].split(' (')[0]}]({record['citation']['url']})"))
    return Table(
        caption=("all_reduce_perf bus bandwidth (busbw, nccl-tests' convention) at large messages: measured figures "
                 "quoted from the linked threads (tests/data/published_speed/collectives.jsonl), against the link "
                 "model's busbw = per-direction link bandwidth x the efficiency of the link kind (derived from how the "
                 "kind moves its bytes, or for NVLink SHARP and Ethernet fitted without the figure's own source, "
                 "leave-one-source-out; plus the per-step latency where the message size is stated), and against a "
                 "fixed 0.8. Error = model / measured - 1; "
                 "implied efficiency = measured / per-direction link bandwidth. Across nodes the link is "
                 "min(intra-node link, NICs per node x NIC)."),
        columns=("figure", "GPUs", "link kind", "link per direction GB/s", "measured busbw GB/s", "model busbw GB/s",
                 "error", "error at 0.8", "implied efficiency", "source"),
        align=("l", "r", "l", "r", "r", "r", "r", "r", "r", "l"), rows=tuple(rows),
        assumptions=(f"efficiency per link kind: {computed_by(fit_link_efficiencies, dotted=True, code=False)}; "
                     f"busbw per record: {computed_by(record_bus_bandwidth_bytes_per_s, dotted=True, code=False)}",))


@table("interconnect-step-reference")
def step_reference() -> Table:
    """Communication against compute for one model across links and ZeRO stages."""
    rows = []
    for link in LINKS:
        for zero in STAGES:
            r = _step(link, zero)
            rows.append((get_interconnect(link).name, str(zero), f"{r.communication_s * 1e3:,.0f}",
                         f"{r.compute_s * 1e3:,.0f}", f"{r.comm_to_compute:.2f}",
                         f"{r.exposed_communication_s * 1e3:,.0f}", f"{r.scaling_efficiency:.0%}",
                         "interconnect" if r.interconnect_bound else "compute",
                         gib(r.memory.total_bytes, 1, grouped=False)))
    return Table(
        caption=(f"One optimizer step of {_job()}. Communication sums the step's collectives; exposed = what overlap "
                 "cannot hide (gradient reductions behind backward compute, ZeRO-3 forward gathers behind forward "
                 "compute, the ZeRO-1 parameter all-gather after the step behind nothing). Memory per GPU is "
                 "total_bytes from training_memory(gpus=8, zero=stage). Estimates, not measurements."),
        columns=("link", "ZeRO", "communication ms", "compute ms", "comm / compute", "exposed ms",
                 "scaling efficiency", "bottleneck", "memory per GPU GiB"),
        align=("l", "r", "r", "r", "r", "r", "r", "l", "r"), rows=tuple(rows),
        assumptions=(*_assumptions(), f"model config as read on {READ_ON}"))


TABLES: dict[str, TableFunction] = declared_tables(globals())
