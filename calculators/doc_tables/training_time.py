"""Tables of the training-time page (docs/performance/training-time.md) and of its page on utilisation and
goodput (docs/performance/training-utilisation.md).

Estimates come from :func:`calculators.performance.training_time.training_time` at the
utilisation fitted on published runs (:mod:`calculators.performance.utilisation`); the
accuracy table scores every published figure of ``tests/data/published_speed/`` with
leave-one-source-out fits (:mod:`calculators.speed_accuracy.training`).

>>> train_utilisation_table().columns[0]
'factor'
"""

from __future__ import annotations

from calculators.catalog.gpus import get_gpu
from calculators.catalog.models import get_model, model_name
from calculators.columns import Column, decimal_column, number_column, percent_column
from calculators.doc_tables.performance import CATALOGS
from calculators.performance.published import NEMO, TRAINING_RUNS, TRAINING_THROUGHPUT
from calculators.catalog import goodput as ops
from calculators.performance.goodput import run_goodput
from calculators.performance.training_time import implied_mfu, training_flops_per_token, training_time
from calculators.catalog.utilisation import ridge_tokens
from calculators.performance.utilisation import DEFAULT_FIT, FP8_REFERENCE, predicted_utilisation
from calculators.speed_accuracy.training import NAIVE_MFU, error_statistics, load, scored_figures
from calculators.tables import Table, TableFunction, computed_by, declared_tables, table
from calculators.units import number, signed_percent

#: Models and GPU counts of the training reference table.
TRAIN_MODELS = ("llama-3.2-1b", "llama-3.2-3b", "llama-3.1-8b", "qwen2.5-14b", "qwen2.5-32b", "llama-3.1-70b",
                "mixtral-8x7b")
TRAIN_TOKENS = 10**12
TRAIN_GPUS = 256
TRAIN_SEQ = 4096
#: Micro-batch of the page's examples (sequences per GPU).
TRAIN_BATCH = 1
FITTED = "utilisation fitted on published runs (calculators.performance.utilisation)"


@table("performance-train-key-numbers")
def train_key_numbers_table() -> Table:
    """Headline figures of the training-time page."""
    l3 = get_model("llama-3.1-8b")
    h100, a100 = get_gpu("h100-sxm"), get_gpu("a100-80gb-sxm")
    per_token = training_flops_per_token(l3, seq=8192)
    run = training_time(l3, h100, tokens=TRAIN_TOKENS, gpus=TRAIN_GPUS, seq=8192)
    ckpt = training_time(l3, h100, tokens=TRAIN_TOKENS, gpus=TRAIN_GPUS, seq=8192, grad_checkpointing=True)
    l2 = next(r for r in TRAINING_RUNS if r.model_id == "llama-2-7b")
    mfu = implied_mfu(get_model(l2.model_id), a100, tokens=l2.tokens, gpu_hours=l2.gpu_hours, seq=l2.seq)
    rows = (
        ("Llama 3.1 8B: training FLOP per token at seq 8192", number(per_token / 1e9, 1), "GFLOP",
         training_flops_per_token),
        (f"Llama 3.1 8B, 1T tokens on {TRAIN_GPUS} x {h100.name} at MFU {run.mfu:.2f}", number(run.days, 1), "days",
         training_time),
        (f"Same with full activation recomputation (MFU {ckpt.mfu:.2f})", number(ckpt.days, 1), "days",
         training_time),
        (f"Llama 2 7B: MFU implied by its published {l2.gpu_hours:,.0f} GPU-hours on {a100.name}",
         number(100 * mfu, 1), "%", implied_mfu),
    )
    return Table.key_numbers(
        rows, caption="Key numbers for training time (calculators.performance.training_time).",
        assumptions=("bf16 mixed precision, dense BF16 tensor rate, micro-batch 1", FITTED,
                     f"whole run = steady state / goodput {run.goodput:.3f} (interruptions and checkpoint saves of "
                     f"{TRAIN_GPUS} GPUs)", CATALOGS))


def _records(group: str) -> str:
    ids = DEFAULT_FIT.fitted_on.get(group, ())
    sources = sorted({r["source_id"] for r in load("training") if r["id"] in ids})
    return f"{len(ids)} runs: {', '.join(sources)}"


@table("performance-train-mfu-defaults")
def train_utilisation_table() -> Table:
    """The fitted utilisation factors and the published runs each was fitted on."""
    fit = DEFAULT_FIT
    # (label, the group's name in DEFAULT_FIT.fitted_on, its factors)
    groups = (("checkpointing: ", "ckpt", fit.checkpointing),
              ("method: ", "method", fit.method), ("framework: ", "framework", fit.framework))
    rows = [("byte-bound bytes per executed FLOP (c; balance 1 / (1 + c x rate / bandwidth))",
             f"{fit.bytes_per_flop:.4f}", _records("bytes_per_flop"))]
    rows += [(label + key, f"{value:.3f}", _records(f"{group}:{key}"))
            for label, group, factors in groups for key, value in sorted(factors.items())]
    rows += [(f"FP8 recipe: {key}", f"{value:.3f}", _records(f"fp8:{key}") if key != FP8_REFERENCE
              else "reference (Transformer Engine's fused layers; no 16-bit runs to compare with)")
             for key, value in sorted(fit.fp8.items()) if key != "none"]
    ridges = ", ".join(f"{get_gpu(gpu).name}: {ridge_tokens(get_gpu(gpu)):,.0f}" for gpu in RIDGE_GPUS)
    rows.append(("micro-batch tokens at half utilisation (T_half)", "rate / bandwidth",
                 f"derived per GPU, not fitted: dense 16-bit rate / memory bandwidth ({ridges} tokens)"))
    rows.append(("whole-run residual (published GPU-hours beyond the modelled goodput)", f"{fit.whole_run_residual:.3f}",
                 _records("run:whole-run")))
    return Table(
        caption=("Training utilisation factors fitted on the published runs of tests/data/published_speed/"
                 "training.jsonl (calculators.catalog.utilisation_fit): utilisation of the executed FLOPs = "
                 "framework x FP8 recipe x checkpointing x method x T / (T + T_half) x Amdahl / (1 + c x R / B), "
                 "R / B = the GPU's dense 16-bit rate / memory bandwidth, T = tokens per "
                 "micro-batch, T_half = the GPU's dense 16-bit rate / memory bandwidth (its roofline ridge point), "
                 "Amdahl = 1 / (s + (1 - s) x P) with FP8 (s: linear layers' share of the FLOPs, P: FP8 / "
                 "16-bit peak). Each factor is the median over sources of the median over each source's runs; the last "
                 "column names the runs and sources."),
        columns=("factor", "value", "fitted on"), align=("l", "r", "l"), rows=tuple(rows),
        assumptions=(("every GPU's share of its peak follows from its rate / bandwidth (no factor per GPU family); "
                      "a framework without runs takes the reference "
                      "(pytorch, 1); FP8 only speeds up the linear layers' GEMMs, at the GPU's peak ratio"),))


#: Jobs of the goodput table: (what, GPUs, steady-state seconds, checkpoint interval in seconds or None for Young's).
GOODPUT_JOBS: tuple[tuple[str, int, float, float | None], ...] = (
    ("a 90-minute benchmark on one node", 8, 90 * 60.0, None),
    ("a 2-week fine-tune on 64 GPUs", 64, 14 * 86400.0, None),
    ("BLOOM 176B: about 400 GPUs, a checkpoint every 3 h, 3.5 months", 400, 105 * 86400.0, 3 * 3600.0),
    ("a month on 1,024 GPUs", 1024, 30 * 86400.0, None),
    ("Llama 3 405B: 16,384 GPUs, 54 days of wall clock", 16384, 48.6 * 86400.0, None),
)


@table("performance-train-goodput")
def train_goodput_table() -> Table:
    """Goodput of a few jobs (calculators.performance.goodput.run_goodput): the share of the wall clock spent training."""
    rows = []
    for what, gpus, steady_s, interval in GOODPUT_JOBS:
        g = run_goodput(gpus=gpus, steady_s=steady_s, checkpoint_interval_s=interval)
        rows.append((what, f"{gpus:,}", number(steady_s / 3600, 1), (f"{g.interruptions:.2g}" if g.interruptions < 1
                                                                     else number(g.interruptions, 0)),
                     number(g.checkpoint_interval_s / 60, 0), number(g.lost_s / 3600, 1),
                     number(g.checkpoint_s / 3600, 1), f"{g.goodput:.3f}"))
    return Table(
        caption=(f"Goodput of a few jobs ({computed_by(run_goodput, dotted=True, code=False)}): steady-state time / "
                 "wall time, "
                 "with interruptions at Llama 3's rate (466 in 54 days on 16,384 GPUs: one per "
                 f"{ops.MTBI_GPU_HOURS:,.0f} GPU-hours), each an {ops.RESTART_S / 60:.0f}-min restart plus half a "
                 f"checkpoint interval of work redone, and {ops.CHECKPOINT_SAVE_S} s per checkpoint save (PyTorch "
                 "asynchronous save); the interval is Young's optimum sqrt(2 x save x the job's time between "
                 "interruptions) unless the job gives one. Estimates."),
        columns=("job", "GPUs", "steady-state h", "interruptions", "checkpoint interval, min", "h lost to interruptions",
                 "h saving checkpoints", "goodput"),
        align=("l", "r", "r", "r", "r", "r", "r", "r"), rows=tuple(rows),
        assumptions=("start-up (launch, data loader, compile) not counted: training times start at the first step",
                     "a job's GPUs fail independently; every interruption stops the whole synchronous job"))


#: The GPUs whose T_half the factor table shows.
RIDGE_GPUS = ("a100-80gb-sxm", "h100-sxm")


@table("performance-train-flops-check")
def train_flops_check_table() -> Table:
    """Our FLOP per token against the model FLOP rate / token rate NVIDIA NeMo publishes."""
    rows = []
    for r in TRAINING_THROUGHPUT:
        theirs = r.model_flop_per_s_per_gpu / r.tokens_per_s_per_gpu
        ours = training_flops_per_token(get_model(r.model_id), seq=r.seq)
        rows.append((model_name(r.model_id), r.seq, r.tokens_per_s_per_gpu, r.model_flop_per_s_per_gpu / 1e12,
                     theirs / 1e9, ours / 1e9, ours / theirs - 1))
    return Table.of(
        caption=("FLOP per token: NeMo's published model TFLOP/s per GPU divided by its tokens/s per GPU (measured, "
                 f"quoted from {NEMO.title}, {NEMO.url}, read {NEMO.as_of}) against "
                 "training_flops_per_token (derived). Error = ours / theirs - 1."),
        columns=(Column("model"), Column("seq", align="r"), number_column("NeMo tokens/s per GPU"),
                 number_column("NeMo model TFLOP/s per GPU"), number_column("NeMo GFLOP per token", 2),
                 number_column("our GFLOP per token", 2), Column("error", signed_percent, "r")),
        rows=rows, assumptions=(CATALOGS,))


@table("performance-train-validation")
def train_validation_table() -> Table:
    """Leave-one-source-out error per category against every published figure, next to the naive roofline."""
    rows_in = scored_figures()
    ours, naive = error_statistics(rows_in), error_statistics(rows_in, key="naive_roofline")
    sources = {c: len({r["source_id"] for r in rows_in if r["category"] == c}) for c in ours}
    rows = []
    for category, stats in ours.items():
        base = naive[category]
        rows.append((category, stats["n"], sources[category], stats["median"], stats["p90"], stats["worst"],
                     base["median"], base["p90"]))
    return Table.of(
        caption=("How close train-time and the link model come to published figures (tests/data/published_speed/, "
                 "each record citing its source): the absolute error on the speed axis (estimate / measured - 1 for a "
                 "rate, measured / estimate - 1 for a time, as the accuracy page scores), per category, every fitted "
                 "constant "
                 "refitted without the figure's own source (leave-one-source-out, calculators.speed_accuracy."
                 f"training). Naive roofline: 6 N tokens / (GPUs x dense BF16 peak x {NAIVE_MFU:g}) for training, "
                 "per-direction link bandwidth x 0.8 for collectives."),
        columns=(Column("category"), decimal_column("figures", 0), Column("sources", align="r"),
                 percent_column("median error", 1), percent_column("90th percentile", 1), percent_column("worst"),
                 percent_column("naive: median", 1), percent_column("naive: 90th percentile", 1)),
        rows=rows,
        assumptions=("median and 90th percentile = nearest rank",
                     "published GPU-hours are whole runs: steady state / goodput"))


@table("performance-train-reference")
def train_reference_table() -> Table:
    """Days and GPU-hours to train catalog models on 1T tokens with 256 GPUs."""
    gpus = [get_gpu(g) for g in ("a100-80gb-sxm", "h100-sxm", "b200")]
    rows = []
    for model_id in TRAIN_MODELS:
        spec = get_model(model_id)
        cells: list[float] = []
        for gpu in gpus:
            run = training_time(spec, gpu, tokens=TRAIN_TOKENS, gpus=TRAIN_GPUS, seq=TRAIN_SEQ, batch=TRAIN_BATCH)
            cells += [run.days, run.gpu_hours]
        rows.append((model_name(model_id), training_flops_per_token(spec, seq=TRAIN_SEQ) / 1e9, *cells))
    columns = [Column("model"), number_column("GFLOP per token", 1)]
    for gpu in gpus:
        utilisation = predicted_utilisation(gpu, micro_batch_tokens=TRAIN_BATCH * TRAIN_SEQ)
        columns += [number_column(f"{gpu.name}: days (utilisation {utilisation:.2f})", 1),
                    number_column(f"{gpu.name}: GPU-hours")]
    return Table.of(
        caption=(f"Wall-clock days and GPU-hours to train on {TRAIN_TOKENS / 1e12:g}T tokens at sequence length "
                 f"{TRAIN_SEQ}, micro-batch {TRAIN_BATCH}, with {TRAIN_GPUS} GPUs (estimates by training_time at the "
                 "fitted utilisation, whole runs; no dense published run on B200 was read, so its utilisation follows from "
                 "its rate / bandwidth alone). Mixtral 8x7B counts its active parameters."),
        columns=columns, rows=rows,
        assumptions=("bf16 mixed precision, no activation recomputation", FITTED, CATALOGS))


TABLES: dict[str, TableFunction] = declared_tables(globals())
