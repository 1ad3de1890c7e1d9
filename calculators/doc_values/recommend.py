"""Numbers in the prose of the Recommend pages: docs/recommend/index.md and docs/recommend/workloads.md.

Each value runs :func:`calculators.recommend.recommend` (or the speed model it calls) on the
workload the sentence names: the worked example, or a workload of the page's tables
(:data:`calculators.doc_tables.recommend.WORKLOADS`).

>>> rec_pcie_efficiency_spread().text
'1.9'
"""

from __future__ import annotations

from calculators.catalog.gpus import get_gpu
from calculators.catalog.interconnects import get_interconnect
from calculators.catalog.models import get_model
from calculators.doc_tables.recommend import WORKLOADS
from calculators.inline_values import Value, ValueFunction, bound, declared_values, quantity, value
from calculators.model import ModelSpec
from calculators.parallel.measured import MEASUREMENTS
from calculators.performance.inference_speed import decode_step
from calculators.performance.training_time import training_time
from calculators.recommend import Workload, recommend

#: The Llama 3 70B int4 workload whose 4 x RTX 3090 row the page's PCIe paragraph cites.
EXAMPLE = Workload(model="llama-3-70b", job="serve", method="int4", context=8192, batch=8, budget_usd_per_hour=5)


@value("rec-example-allreduce-share")
def rec_example_allreduce_share(value_id: str) -> Value:
    """Share of the decode step of 4 x RTX 3090 in :data:`EXAMPLE` spent on tensor-parallel all-reduces, percent."""
    best = next(row for row in recommend(EXAMPLE).rows if row.gpu_id == "rtx-3090" and row.count == 4)
    gpu = get_gpu(best.gpu_id)
    step = decode_step(_spec(EXAMPLE), gpu, weights=EXAMPLE.method, batch=EXAMPLE.batch,
                       context=EXAMPLE.context, gpus=best.count)
    return quantity(value_id, step.communication_time_s / step.time_s, digits=0, unit="%", kind="derived",
                    description=f"Tensor-parallel all-reduce time over decode step time for one row of the Llama 3 70B "
                                f"int4 workload ({best.count} x {gpu.name}, Llama 3 70B int4, batch {EXAMPLE.batch}, "
                                f"context {EXAMPLE.context}).",
                    assumptions=(("roofline at the default efficiencies; all-reduces over the GPUs' own link at the "
                                 "efficiency and latency derived from published nccl-tests runs"),))


@value("rec-pcie-efficiency-spread")
def rec_pcie_efficiency_spread(value_id: str) -> Value:
    """Largest over smallest of the measured PCIe all-reduce efficiencies the speed model averages."""
    pcie = [m.implied_efficiency for m in MEASUREMENTS
            if m.in_ring_model and get_interconnect(m.interconnect).kind == "pcie"]
    return quantity(value_id, max(pcie) / min(pcie), digits=1, unit="", kind="derived",
                    description="Ratio of the highest to the lowest efficiency implied by the published PCIe "
                                "all_reduce_perf runs (the link model, calculators.parallel.links, takes the median of "
                                "the PCIe runs).")


def _spec(w: Workload) -> ModelSpec:
    return w.model if isinstance(w.model, ModelSpec) else get_model(w.model)


def _workload(table_id: str) -> Workload:
    return next(w for tid, _title, w in WORKLOADS if tid == table_id)


def finetune_scaling(value_id: str, *, table_id: str, gpu: str, count: int) -> Value:
    """Scaling efficiency of one configuration of a fine-tuning workload of the page, percent."""
    w = _workload(table_id)
    record = get_gpu(gpu)
    run = training_time(_spec(w), record, tokens=w.tokens, gpus=count, mfu=w.mfu,
                        seq=w.context if w.context is not None else 2048, grad_checkpointing=w.grad_checkpointing,
                        method=w.method or "full", batch=w.batch, zero=3)
    return quantity(value_id, run.scaling_efficiency, digits=0, unit="%", kind="derived",
                    description=f"Scaling efficiency (compute / (compute + exposed ZeRO-3 communication)) of "
                                f"{count} x {record.name} in workload {table_id}.",
                    assumptions=(f"ZeRO-3 over {run.scaling.link_name}; utilisation fitted on published runs",))


VALUES: dict[str, ValueFunction] = declared_values(globals(), {
    "rec-qlora-70b-4090x8-scaling": bound(finetune_scaling, table_id="recommend-qlora-70b", gpu="rtx-4090", count=8),
    "rec-full-8b-h100pcie-x8-scaling": bound(finetune_scaling, table_id="recommend-full-8b", gpu="h100-pcie", count=8),
})
