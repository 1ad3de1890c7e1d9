"""The optimizer formulas shown on the site say what optimizer_bytes computes."""

from __future__ import annotations

import re

import pytest

from calculators.memory.optimizers import OPTIMIZER_FORMULAS, OPTIMIZERS, optimizer_bytes


def _value(formula: str, p: int) -> float | None:
    """Evaluate the leading arithmetic of a formula like "2 × p (...)"; None for prose rules."""
    if "row" in formula:
        return None
    head = re.sub(r"\s*\([^()]*[a-z][^()]*\)", "", formula)  # drop prose in parentheses
    head = head.split(",")[0].strip()  # and a trailing clause
    return float(eval(head.replace("×", "*").replace("p", str(p)), {"__builtins__": {}}))  # noqa: S307


def test_every_optimizer_has_a_formula() -> None:
    assert set(OPTIMIZER_FORMULAS) == set(OPTIMIZERS)


@pytest.mark.parametrize("name", sorted(OPTIMIZERS))
@pytest.mark.parametrize("p", [2, 4])
def test_formula_matches_optimizer_bytes(name: str, p: int) -> None:
    state, temp = OPTIMIZER_FORMULAS[name]
    computed = optimizer_bytes(optimizer=name, param_bytes=p)
    expected_state = _value(state, p)
    if expected_state is not None:
        assert computed.state_bytes_per_param == pytest.approx(expected_state)
    assert computed.step_temp_bytes_per_param == pytest.approx(_value(temp, p))
