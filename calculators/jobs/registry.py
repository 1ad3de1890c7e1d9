"""Every named calculator by name: the memory calculators, the fit calculator, then each subject's.

Each :class:`~calculators.jobs.calculator.Calculator` ties its inputs (fields declared once,
with ranges and choices taken from the engine) to a compute function over checked values and
its views. The build, the browser (through :mod:`calculators.widgets.api`), the command line
(:mod:`calculators.commands`) and the tests all go through :func:`get_calculator`.

>>> {'fit', 'inference-memory', 'kv-cache', 'training-memory'} <= set(calculator_names())
True
>>> calculator = get_calculator("kv-cache")
>>> values = calculator.values({"model": "llama-3-8b", "context": "8192"})
>>> values["context"], values["kv_dtype"]
(8192, 'bf16')
>>> calculator.answer({"model": "llama-3-8b", "context": "8192"}).data["total_bytes"] / 2**30  # bf16 cache
1.0
"""

from __future__ import annotations

import functools

from calculators.errors import UnknownNameError
from calculators.jobs import encoder, fit, memory, parallel, plan, recommend, reverse, speed, system_cost, training_time, vision
from calculators.jobs.calculator import Calculator

#: The subjects' modules, in the registry's order (the CLI lists its subcommands in it too); each defines
#: ``calculators() -> list[Calculator]``.
SUBJECTS = (memory, fit, reverse, parallel, speed, training_time, recommend, system_cost, vision, encoder, plan)


def _build() -> dict[str, Calculator]:
    registry: dict[str, Calculator] = {}
    for subject in SUBJECTS:
        for calculator in subject.calculators():
            if calculator.name in registry:
                raise ValueError(f"calculator {calculator.name!r} is defined twice")
            registry[calculator.name] = calculator
    return registry


@functools.cache
def _registry() -> dict[str, Calculator]:
    # Built on first use (importing the package does no work) and memoised: it is a
    # pure function of the engine's constants and catalogs.
    return _build()


def calculator_names() -> list[str]:
    """Names of every calculator, in registry order."""
    return list(_registry())


def get_calculator(name: str) -> Calculator:
    """The calculator called ``name``; raises :class:`UnknownNameError` (field ``calculator``)."""
    registry = _registry()
    if not isinstance(name, str) or name not in registry:
        raise UnknownNameError("calculator", str(name), list(registry))
    return registry[name]
