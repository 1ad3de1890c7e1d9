"""Numbers in the prose about the accuracy of training-time estimates, on the page on utilisation and goodput
(docs/performance/training-utilisation.md).

>>> train_target_median().text
'15 %'
"""

from __future__ import annotations

from calculators.catalog.utilisation import whole_run_residual
from calculators.inline_values import Value, ValueFunction, declared_values, quantity, value
from calculators.performance.goodput import run_goodput
from calculators.speed_accuracy.training import TARGET_MEDIAN, TARGET_P90
from calculators.tables import computed_by


@value("train-target-median")
def train_target_median(value_id: str) -> Value:
    """The accuracy target for the median |error| per category (issue 14), percent."""
    return quantity(value_id, TARGET_MEDIAN, digits=0, unit="%", kind="assumed",
                    description="Target median absolute error per category of ten or more published figures "
                                "(calculators.speed_accuracy.training.TARGET_MEDIAN).")


@value("train-target-p90")
def train_target_p90(value_id: str) -> Value:
    """The accuracy target for the 90th-percentile |error| per category (issue 14), percent."""
    return quantity(value_id, TARGET_P90, digits=0, unit="%", kind="assumed",
                    description="Target 90th-percentile absolute error per category of ten or more published "
                                "figures (calculators.speed_accuracy.training.TARGET_P90).")


@value("train-goodput-benchmark")
def train_goodput_benchmark(value_id: str) -> Value:
    """Goodput of a 90-minute run on 8 GPUs (calculators.performance.goodput.run_goodput), a fraction."""
    return quantity(value_id, run_goodput(gpus=8, steady_s=90 * 60.0).goodput, digits=3, unit="", kind="derived",
                    description="Goodput of a 90-minute steady-state run on 8 GPUs: interruptions at Llama 3's rate, "
                                f"restarts and checkpoint saves ({computed_by(run_goodput, dotted=True, code=False)}).")


@value("train-goodput-llama3")
def train_goodput_llama3(value_id: str) -> Value:
    """Goodput of 16,384 GPUs (Llama 3 405B's job), a fraction; the same for any length of run."""
    return quantity(value_id, run_goodput(gpus=16384, steady_s=48.6 * 86400).goodput, digits=3, unit="",
                    kind="derived",
                    description=f"Goodput of a job on 16,384 GPUs ({computed_by(run_goodput, dotted=True, code=False)}); "
                                "Llama 3 reports an effective training time above 90 %.")


@value("train-whole-run-residual")
def train_whole_run_residual(value_id: str) -> Value:
    """The fitted whole-run residual of published pre-training GPU-hours, a fraction."""
    return quantity(value_id, whole_run_residual(), digits=3, unit="", kind="derived",
                    description="Share of published pre-training GPU-hours the modelled steady state and goodput "
                                "explain (fitted, calculators.catalog.utilisation_fit RUN['whole-run']).")


VALUES: dict[str, ValueFunction] = declared_values(globals())
