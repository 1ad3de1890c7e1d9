"""Tables of the "Which GPUs should I buy or rent?" pages (docs/recommend/index.md: the key numbers;
docs/recommend/workloads.md: the four workloads and the guide's picks).

Every row comes from :func:`calculators.recommend.recommend`.

>>> TABLES["recommend-serve-8b"]().columns[:3]
('#', 'meets targets', 'GPUs')
"""

from __future__ import annotations

import functools

from calculators.catalog import prices
from calculators.catalog.gpus import get_gpu
from calculators.catalog.models import get_model
from calculators.columns import Column, gib_column, number_column
from calculators.fit import fit_verdict
from calculators.memory.training import training_memory
from calculators.recommend import GPU_COUNTS, Recommendation, Workload, recommend
from calculators.tables import Table, TableFunction
from calculators.units import number

#: Rows shown per workload table (the cheapest per unit of work first).
SHOWN = 10
#: Tight configurations shown after the ranked ones.
SHOWN_TIGHT = 3
#: The representative workloads: (table id, title, workload).
WORKLOADS: tuple[tuple[str, str, Workload], ...] = (
    ("recommend-serve-8b", "Serve Llama 3 8B, bf16, 8k context, 32 concurrent users",
     Workload(model="llama-3-8b", job="serve", method="bf16", context=8192, batch=32, target_tokens_per_s=1000)),
    ("recommend-serve-70b-int4", "Serve Llama 3 70B, int4 weights, 8k context, 8 concurrent users",
     Workload(model="llama-3-70b", job="serve", method="int4", context=8192, batch=8, target_tokens_per_s=200)),
    ("recommend-qlora-70b", "QLoRA fine-tune Llama 3 70B, seq 2048, 100M tokens",
     Workload(model="llama-3-70b", job="finetune", method="qlora", context=2048, batch=1, tokens=10**8)),
    ("recommend-full-8b", "Full fine-tune Llama 3 8B, seq 2048, 1B tokens, under 1 day",
     Workload(model="llama-3-8b", job="finetune", method="full", context=2048, batch=1, tokens=10**9,
              target_tokens_per_s=10**9 / 86400)),
)


def _target_text(w: Workload) -> str:
    parts = []
    if w.target_tokens_per_s is not None:
        parts.append(f"throughput target {w.target_tokens_per_s:,.0f} tokens/s")
    if w.budget_usd_per_hour is not None:
        parts.append(f"budget {w.budget_usd_per_hour:,.2f} USD/hour")
    return "; ".join(parts) or "no throughput target or budget"


def _money(value: float | None) -> str:
    return "unknown" if value is None else number(value, 2)


def _table(table_id: str, title: str, workload: Workload) -> Table:
    r = recommend(workload)
    serve = r.job == "serve"
    columns = [Column("#", align="r"), Column("meets targets"), Column("GPUs"),
               gib_column("headroom per GPU (GiB)", 1, grouped=True),
               number_column("tokens/s (estimate)", missing="unknown")]
    columns += [] if serve else [number_column("days (estimate)", 2, missing="unknown")]
    columns += [Column("USD per hour", _money, "r"),
                Column("USD per million tokens" if serve else "USD per run", _money, "r"), Column("price")]
    rows = []
    listed = [(str(n), row) for n, row in enumerate(r.rows[:SHOWN], start=1)]
    listed += [("tight", row) for row in r.tight_rows[:SHOWN_TIGHT]]
    for rank, row in listed:
        days = [] if serve else [row.days]
        rows.append((rank, "yes" if row.meets_targets else "no", row.label, row.headroom_bytes, row.tokens_per_s,
                     *days, row.usd_per_hour, row.sort_cost, row.price_basis))
    caption = (f"{title}: the first {min(SHOWN, len(r.rows))} of {len(r.rows)} configurations that fit with margin, "
               f"then up to {SHOWN_TIGHT} of the {len(r.tight_rows)} tight ones (marked 'tight', not ranked), from "
               f"recommend(); {_target_text(workload)}. {r.objective_text} 'price': 'offer' where the catalog has an "
               "instance of that many GPUs, 'per-GPU assumption' where the GPU count times a per-GPU price is "
               "assumed rentable. Assumptions: " + "; ".join(r.assumptions) + ".")
    return Table.of(columns, rows, id=table_id, caption=caption)


def _best(r: Recommendation) -> str:
    row = r.rows[0]
    return f"{row.count} x {row.gpu_name}"


def key_numbers() -> Table:
    """The top configuration of each representative workload and its cost."""
    rows = []
    for _, title, workload in WORKLOADS:
        r = recommend(workload)
        top = r.rows[0]
        unit = "USD per million tokens" if r.job == "serve" else "USD per run"
        meeting = sum(1 for row in r.rows if row.meets_targets)
        rows.append((title, _best(r), f"{_money(top.sort_cost)} {unit}", len(r.rows), meeting))
    return Table.of(id="recommend-key-numbers",
                    columns=(Column("workload"), Column("first configuration"), Column("its cost", align="r"),
                             Column("configurations that fit", align="r"), Column("meeting the targets", align="r")),
                    rows=rows,
                    caption=f"Top of each of the four workload tables (cheapest per unit of work among those that fit with "
                            f"margin and meet the targets, whatever its price basis, which the tables' price column "
                            f"states), GPU counts {', '.join(str(c) for c in GPU_COUNTS)}; cloud on-demand prices "
                            f"of catalog edition {prices.EDITION}; speeds are estimates at assumed efficiencies.")


#: A vendor guide's fine-tuning shopping list: (model id, method, the GPU it recommends, how many).
GUIDE_PICKS: tuple[tuple[str, str, str, int], ...] = (
    ("llama-3-8b", "qlora", "rtx-5090", 1),
    ("llama-3-8b", "lora", "rtx-5090", 1),
    ("llama-3-8b", "full", "rtx-pro-6000-blackwell", 1),
    ("llama-3-70b", "qlora", "rtx-pro-6000-blackwell", 1),
    ("llama-3-70b", "lora", "rtx-pro-6000-blackwell", 2),
    ("llama-3-70b", "full", "rtx-pro-6000-blackwell", 8),
)


def _smallest(model: str, method: str, gpu_id: str) -> int | None:
    gpu = get_gpu(gpu_id)
    for count in GPU_COUNTS:
        estimate = training_memory(get_model(model), method=method, batch=1, seq=2048, grad_checkpointing=True,
                                   gpus=count, zero=3 if count > 1 else 0)
        if fit_verdict(estimate, gpu).fits:
            return count
    return None


def guide_picks() -> Table:
    """The vendor guide's recommended GPU per fine-tuning job against the computed fit and the cheapest rental."""
    rows = []
    for model, method, gpu_id, count in GUIDE_PICKS:
        need = _smallest(model, method, gpu_id)
        r = recommend(Workload(model=model, job="finetune", method=method, context=2048, batch=1, tokens=10**8))
        cheapest = next((row for row in r.rows if row.usd_per_run is not None), None)
        rows.append((get_model(model).name, method, f"{count} x {get_gpu(gpu_id).name}", need,
                     "unknown" if cheapest is None else f"{cheapest.count} x {cheapest.gpu_name}",
                     None if cheapest is None else cheapest.usd_per_run))
    return Table.of(id="recommend-guide-picks",
                    columns=(Column("model"), Column("method"), Column("guide recommends"),
                             number_column("computed: fewest of that GPU that fit", missing="none up to 8"),
                             Column("computed: cheapest priced rental"),
                             Column("its USD per 100M tokens", _money, "r")),
                    rows=rows,
                    caption="Recommended GPUs from VRLA Tech's fine-tuning VRAM guide (2026) against the calculators: "
                            "training_memory total_bytes at batch 1, seq 2048, bf16-mixed AdamW for full training, "
                            "activation checkpointing on, ZeRO-3 above one GPU; cheapest rental from recommend() at "
                            f"100M tokens, default MFU, catalog edition {prices.EDITION} (the RTX 5090 and RTX PRO "
                            "6000 have no on-demand price in it).")


TABLES: dict[str, TableFunction] = {
    "recommend-key-numbers": key_numbers,
    **{table_id: functools.partial(_table, table_id, title, workload) for table_id, title, workload in WORKLOADS},
    "recommend-guide-picks": guide_picks,
}
