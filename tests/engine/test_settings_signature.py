"""The signature a ``**settings`` convenience shows is typed (``help()``, the API snapshot, the docs).

``calculators.validate.settings_signature`` builds it from the record's declared defaults; each keyword takes
its annotation from the record field of that name, or from an explicit ``types`` entry.
"""

from __future__ import annotations

import inspect
from dataclasses import dataclass

import pytest

from calculators.memory.training_inputs import training_setup
from calculators.parallel.step import step_communication
from calculators.performance.training_time import training_time
from calculators.validate import settings_signature


@pytest.mark.parametrize("function", [training_time, step_communication, training_setup])
def test_every_parameter_of_a_settings_convenience_is_annotated(function: object) -> None:
    signature = inspect.signature(function)  # type: ignore[arg-type]
    untyped = [name for name, p in signature.parameters.items() if p.annotation is inspect.Parameter.empty]
    assert untyped == []
    assert signature.return_annotation is not inspect.Signature.empty


def test_a_keyword_with_no_declared_type_is_refused() -> None:
    @dataclass
    class Job:
        batch: int

    with pytest.raises(ValueError, match="no type for seq"):
        settings_signature({"batch": 1, "seq": 2048}, records=(Job,))
