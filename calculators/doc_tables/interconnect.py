"""Tables of the interconnect page (docs/multi-gpu/interconnect.md) and of its link page (docs/multi-gpu/links.md:
interconnect-links, interconnect-claim-pcie-nvlink, interconnect-nccl-validation).

Link figures come from :mod:`calculators.catalog.interconnects`; times from
:mod:`calculators.parallel.step`; the measured bus bandwidths from
``tests/data/published_speed/collectives.jsonl`` (quoted, with their sources).
"""

from __future__ import annotations

from calculators.catalog.gpus import get_gpu
from calculators.catalog.interconnects import all_interconnects, get_interconnect
from calculators.catalog.models import READ_ON, get_model, model_name
from calculators.columns import Column, decimal_column, gb_column, gib_column, number_column
from calculators.parallel.links import collective_efficiency, record_link_bytes_per_s
from calculators.parallel.collective_records import record_bus_bandwidth_bytes_per_s
from calculators.parallel.step import StepCommunication, step_communication
from calculators.speed_accuracy.training import load, scored_figures
from calculators.tables import Table, TableFunction, computed_by, declared_tables, table
from calculators.units import gb, number, signed_error

MODEL = "llama-3-8b"
GPU = "h100-sxm"
GPUS = 8
BATCH, SEQ = 1, 4096
LINKS = ("pcie4", "pcie5", "nvlink3", "nvlink4", "nvlink5")
STAGES = (0, 1, 3)
_AS_OF = max(link.source.as_of for link in all_interconnects())


def _whole_error(fraction: float) -> str:
    return signed_error(fraction, 0)


def _step(link: str, zero: int) -> StepCommunication:
    return step_communication(get_model(MODEL), gpu=GPU, gpus=GPUS, zero=zero, interconnect=link, batch=BATCH,
                              seq=SEQ)


def _assumptions() -> tuple[str, ...]:
    return ("collective efficiency and per-step latency of the one link model (calculators.parallel.links: efficiencies "
            "derived per link kind and checked against published nccl-tests runs, latencies from small-message runs)",
            f"compute: training FLOPs per token (6 x matmul parameters + attention) at the utilisation fitted on "
            f"published runs, {_step('nvlink4', 0).mfu:.3g} for the {get_gpu(GPU).name} at {BATCH * SEQ:,} tokens per "
            "micro-batch (calculators.catalog.utilisation, as train-time)", f"link catalog as of {_AS_OF}")


def _job() -> str:
    return (f"{model_name(MODEL)}, full fine-tuning, {GPUS} GPUs, micro-batch {BATCH} x {SEQ} tokens "
            f"per GPU, compute at the {get_gpu(GPU).name}'s dense BF16 rate, fp32 gradients, bf16 gathered weights")


@table("interconnect-key-numbers")
def key_numbers() -> Table:
    """Headline figures: per-direction rates and one step's all-reduce over PCIe 5 and NVLink 4."""
    pcie, nvlink = get_interconnect("pcie5"), get_interconnect("nvlink4")
    over_pcie, over_nvlink = _step("pcie5", 0), _step("nvlink4", 0)
    rows = (
        (f"{pcie.name}: per direction (PCI-SIG's {gb(pcie.bandwidth_bytes_per_s, 1)} GB/s is both directions)",
         gb(pcie.per_direction_bytes_per_s, 1), "GB/s", get_interconnect),
        (f"{nvlink.name}: per direction (NVIDIA's {gb(nvlink.bandwidth_bytes_per_s, 1)} GB/s is both directions)",
         gb(nvlink.per_direction_bytes_per_s, 1), "GB/s", get_interconnect),
        (f"DDP gradient all-reduce, {model_name(MODEL)}, {GPUS} GPUs over {pcie.name}",
         number(over_pcie.communication_s * 1e3), "ms", step_communication),
        (f"the same over {nvlink.name}", number(over_nvlink.communication_s * 1e3), "ms", step_communication),
        ("compute of that step (training FLOPs at the fitted utilisation, as train-time)",
         number(over_pcie.compute_s * 1e3), "ms", step_communication),
    )
    return Table.key_numbers(rows, columns=("quantity", "value", "unit", "function"), dotted=True,
                             caption=f"Link figures are sourced specs halved or quoted; times are estimates for {_job()}.",
                             assumptions=_assumptions())


@table("interconnect-links")
def links() -> Table:
    """The link catalog: the quoted figure, its direction, and both derived figures."""
    rows = ((link.name, link.kind, link.bandwidth_bytes_per_s, link.direction, link.per_direction_bytes_per_s,
             link.bidirectional_bytes_per_s, link.scope, f"[{link.source.title.split(' (')[0]}]({link.source.url})",
             link.source.as_of)
            for link in all_interconnects())
    return Table.of(
        caption=("Each link's headline figure exactly as its source quotes it (spec), whether that figure sums both "
                 "directions, and the per-direction and bidirectional figures derived from it. Raw signalling "
                 "rates: encoding and protocol overheads are not subtracted."),
        columns=(Column("link"), Column("kind"), gb_column("quoted GB/s"), Column("quoted as"),
                 gb_column("per direction GB/s"), gb_column("both directions GB/s"), Column("scope"), Column("source"),
                 Column("as of")),
        rows=rows)


@table("interconnect-claim-pcie-nvlink")
def claim_check() -> Table:
    """The guides' 'PCIe Gen 5 tops out at 128 GB/s, NVLink 900 GB/s' claim, per direction and summed."""
    pcie, nvlink = get_interconnect("pcie5"), get_interconnect("nvlink4")
    rows = []
    for basis, attribute in (("both directions summed", "bidirectional_bytes_per_s"),
                             ("per direction (what a ring collective uses)", "per_direction_bytes_per_s")):
        p, n = getattr(pcie, attribute), getattr(nvlink, attribute)
        rows.append((basis, p, n, n / p))
    return Table.of(
        caption=(f"{pcie.name} against {nvlink.name}, from the link catalog. The claim's two figures are both "
                 "bidirectional totals, so they compare like with like; a ring all-reduce sees the per-direction "
                 "row."),
        columns=(Column("basis"), gb_column(f"{pcie.name} GB/s"), gb_column(f"{nvlink.name} GB/s"),
                 decimal_column("ratio", 2)),
        rows=rows, assumptions=(f"link catalog as of {_AS_OF}",))


@table("interconnect-nccl-validation")
def nccl_validation() -> Table:
    """The link model's large-message busbw against published nccl-tests figures, leave-one-source-out."""
    scored = {r["figure_id"]: r for r in scored_figures() if r["category"] == "collectives"}
    rows = []
    for record in (r for r in load("collectives") if not r.get("excluded")):
        row = scored[record["id"]]
        link = record_link_bytes_per_s(record)
        measured = float(record["measured"])
        rows.append((record["id"], record["gpus"], record["link_kind"], link, measured, row["estimated"],
                     row["estimated"] / measured - 1, row["naive_roofline"] / measured - 1, measured / link,
                     f"[{record['citation']['title'].split(' (')[0]}]({record['citation']['url']})"))
    return Table.of(
        caption=("nccl-tests bus bandwidth (busbw, nccl-tests' convention; all_reduce_perf, all_gather_perf, "
                 "reduce_scatter_perf, and alltoall_perf, an all-to-all being timed as NCCL runs it, grouped sends "
                 "and receives: calculators.parallel.all_to_all) at large messages: measured figures "
                 "quoted from the linked threads (tests/data/published_speed/collectives.jsonl), against the link "
                 "model's busbw = per-direction link bandwidth x the efficiency of the link kind (derived from how the "
                 "kind moves its bytes; none is fitted; plus the fixed cost where the message size is stated), and "
                 "against a fixed 0.8. Error = model / measured - 1; "
                 "implied efficiency = measured / per-direction link bandwidth. Across nodes the link is "
                 "min(intra-node link, NICs per node x NIC) and the fixed cost is NCCL's own latency model (its "
                 "tuning.cc: 14 us per network step of a ring plus twice the network plugin's stated latency, 75 us "
                 "for AWS EFA on p5); an all-reduce runs as NCCL's Tree where that model times it faster, and over two "
                 "NVLink SHARP nodes as NVLSTree: the same timing the answers' training step uses."),
        columns=(Column("figure"), Column("GPUs", align="r"), Column("link kind"), gb_column("link per direction GB/s"),
                 gb_column("measured busbw GB/s"), gb_column("model busbw GB/s"),
                 Column("error", _whole_error, "r"), Column("error at 0.8", _whole_error, "r"),
                 decimal_column("implied efficiency", 2), Column("source")),
        rows=rows,
        assumptions=(f"efficiency per link kind: {computed_by(collective_efficiency, dotted=True, code=False)}; "
                     f"busbw per record: {computed_by(record_bus_bandwidth_bytes_per_s, dotted=True, code=False)}",))


@table("interconnect-step-reference")
def step_reference() -> Table:
    """Communication against compute for one model across links and ZeRO stages."""
    rows = []
    for link in LINKS:
        for zero in STAGES:
            r = _step(link, zero)
            rows.append((get_interconnect(link).name, zero, r.communication_s * 1e3, r.compute_s * 1e3,
                         r.comm_to_compute, r.exposed_communication_s * 1e3, r.scaling_efficiency,
                         "interconnect" if r.interconnect_bound else "compute", r.memory.total_bytes))
    return Table.of(
        caption=(f"One optimizer step of {_job()}. Communication sums the step's collectives; exposed = what overlap "
                 "cannot hide (gradient reductions behind backward compute, ZeRO-3 forward gathers behind forward "
                 "compute, the ZeRO-1 parameter all-gather after the step behind nothing). Memory per GPU is "
                 "total_bytes from training_memory(gpus=8, zero=stage). Estimates, not measurements."),
        columns=(Column("link"), Column("ZeRO", align="r"), number_column("communication ms"),
                 number_column("compute ms"), decimal_column("comm / compute", 2), number_column("exposed ms"),
                 Column("scaling efficiency", "{:.0%}".format, "r"), Column("bottleneck"),
                 gib_column("memory per GPU GiB", 1)),
        rows=rows,
        assumptions=(*_assumptions(), f"model config as read on {READ_ON}"))


TABLES: dict[str, TableFunction] = declared_tables(globals())
