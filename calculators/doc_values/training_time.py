"""Numbers in the prose of the training-time page (docs/performance/training-time.md) about its accuracy.

>>> train_target_median().text
'15 %'
"""

from __future__ import annotations

from calculators.inline_values import Value, ValueFunction, declared_values, quantity, value
from calculators.speed_accuracy.training import TARGET_MEDIAN, TARGET_P90


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


VALUES: dict[str, ValueFunction] = declared_values(globals())
