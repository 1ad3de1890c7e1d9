"""Numbers in the prose of the training-time page (docs/performance/training-time.md) about its accuracy.

>>> train_target_median().text
'15 %'
"""

from __future__ import annotations

from calculators.inline_values import Value, ValueFunction, quantity
from calculators.speed_accuracy.training import TARGET_MEDIAN, TARGET_P90

PERCENT = 0.01


def train_target_median() -> Value:
    """The accuracy target for the median |error| per category (issue 14), percent."""
    return quantity("train-target-median", TARGET_MEDIAN, scale=PERCENT, digits=0, unit="%", kind="assumed",
                    description="Target median absolute error per category of ten or more published figures "
                                "(calculators.speed_accuracy.training.TARGET_MEDIAN).")


def train_target_p90() -> Value:
    """The accuracy target for the 90th-percentile |error| per category (issue 14), percent."""
    return quantity("train-target-p90", TARGET_P90, scale=PERCENT, digits=0, unit="%", kind="assumed",
                    description="Target 90th-percentile absolute error per category of ten or more published "
                                "figures (calculators.speed_accuracy.training.TARGET_P90).")


VALUES: dict[str, ValueFunction] = {
    "train-target-median": train_target_median,
    "train-target-p90": train_target_p90,
}
