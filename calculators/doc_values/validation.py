"""Numbers in the prose about accuracy: docs/validation/index.md, docs/validation/real-gpu.md and the home page
(docs/index.md).

Each is computed from the committed measurements (``tests/data/measurements``) by
:mod:`calculators.accuracy`, the same code as the page's tables.

>>> int(case_count("any-id").number) > 0
True
"""

from __future__ import annotations

from calculators import accuracy
from calculators.catalog.gpus import get_gpu
from calculators.catalog.usable_memory import usable_memory_bytes
from calculators.inline_values import Value, ValueFunction, bound, declared_values, quantity
from calculators.measurements import load_measurements
from calculators.memory.overhead import FIT_MARGIN

SOURCE = "measurements: tests/data/measurements (fake-tensor traces of transformers steps)"


def case_count(value_id: str) -> Value:
    """Number of measured cases the calculators are scored against."""
    return quantity(value_id, len(load_measurements()), digits=0, unit="", kind="measured",
                    description="Number of measured PyTorch training and inference steps the calculators are "
                                "scored against.", assumptions=(SOURCE,))


def _all_cases() -> accuracy.ErrorSummary:
    return accuracy.summary(accuracy.score(record) for record in load_measurements())


def worst_error(value_id: str) -> Value:
    """Largest absolute relative error of peak_allocated_bytes over every measured case, percent."""
    return quantity(value_id, _all_cases().worst, digits=1, unit="%", kind="measured",
                    description="Largest absolute error of the estimated allocated peak against a measured one, "
                                "over every measured case.", assumptions=(SOURCE,))


def p95_error(value_id: str) -> Value:
    """95th percentile of the absolute relative error of peak_allocated_bytes over every measured case, percent."""
    return quantity(value_id, _all_cases().p95, digits=2, unit="%", kind="measured",
                    description="95th percentile of the absolute error of the estimated allocated peak against a "
                                "measured one, over every measured case.", assumptions=(SOURCE,))


def h100_usable(value_id: str) -> Value:
    """What one process could allocate on the measured H100 80GB, GiB (torch.cuda.mem_get_info() total)."""
    return quantity(value_id, usable_memory_bytes(get_gpu("h100-sxm")), digits=2, unit="GiB", kind="measured",
                    description="Memory one process can allocate on an H100 80GB (mem_get_info total).",
                    assumptions=("tests/data/measurements_cuda/h100-sxm/env.json; calculators.catalog.usable_memory",))


def fit_margin_base(value_id: str) -> Value:
    """The fixed part of the fit margin, GiB (set on the measured H100 boundaries)."""
    return quantity(value_id, FIT_MARGIN.base_bytes, digits=0, unit="GiB", kind="measured",
                    description="Fixed part of the memory a step needs free beyond its live tensors and the CUDA "
                                "context.",
                    assumptions=("tests/data/measurements_cuda/h100-sxm/boundaries.json",
                                 "calculators.memory.overhead.FIT_MARGIN"))


VALUES: dict[str, ValueFunction] = declared_values(globals(), {
    "accuracy-h100-usable": bound(h100_usable),
    "accuracy-fit-margin-base": bound(fit_margin_base),
    "accuracy-case-count": bound(case_count),
    "home-case-count": bound(case_count),
    "home-p95-error": bound(p95_error),
    "home-worst-error": bound(worst_error),
})
