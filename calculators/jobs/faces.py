"""Which face offers which input of a named calculator: the web form, the ``mlhw`` command line, or both.

A calculator's fields are its form's inputs and its subcommand's options alike
(:attr:`~calculators.inputs.fields.Field.faces`); an input one face lacks is named here with the
reason, in :data:`FORM_ONLY` or :data:`CLI_ONLY`, and a calculator without a subcommand in
:data:`NO_COMMAND` (``tests/tools/test_one_declaration.py`` checks that every entry names an input).

>>> from calculators.jobs.registry import get_calculator
>>> [field.cli_flag for field in command_fields(get_calculator("inference-memory"))][:3]
['--model', '--weights', '--kv-cache']
"""

from __future__ import annotations

from calculators.inputs.fields import Field
from calculators.inputs.shared import CUSTOM_GPU_NAMES
from calculators.jobs.calculator import Calculator

#: Why a custom GPU's numbers are form inputs only.
_CUSTOM_GPU_WHY = "a custom GPU's numbers: the command line spells them in one --gpu custom:memory_gb=N,... or mac:GB"
#: Why a memory form's GPU has no option.
_CHART_GPU_WHY = ("the GPU the chart draws and whose formats are noted; memory does not depend on it and the "
                  "text has no chart")

#: Form inputs without a command-line option, and why: ``name`` (every calculator) or ``calculator.name``.
FORM_ONLY: dict[str, str] = {
    "config": "a pasted config.json's text; the command line's --model takes a path to the file instead",
    **{name: _CUSTOM_GPU_WHY for name in CUSTOM_GPU_NAMES},
    "training-memory.gpu": _CHART_GPU_WHY,
    "inference-memory.gpu": _CHART_GPU_WHY,
    "fit.job": "the command line's 'fit train' and 'fit infer' subcommands (calculators.cli.FIT_JOBS)",
    "recommend.weights": "the form splits Workload.method by job (weights when serving, method when fine-tuning); "
                         "the command line's one --method takes either",
    "recommend.gpu": "highlights that GPU's rows in the form's table; the command line's --gpu (gpus) filters",
    "cost-breakeven.model": "the form prices a training run of this model (training_time); the command line "
                            "prices --gpu-hours",
    "cost-breakeven.tokens": "the form prices a training run of this many tokens (training_time); the command line "
                             "prices --gpu-hours",
    "system-balance.offload_optimizer": "a checkbox for the two common offloads; the command line's --offload "
                                        "names any of calculators.system.OFFLOADS",
}
#: Command-line options without a form input, and why: ``name`` (every subcommand) or ``calculator.name``
#: (each is a field in its calculator's ``cli_fields``).
CLI_ONLY: dict[str, str] = {
    "json": "--json chooses the output's format; the form always shows the rendered result",
    "help": "argparse's own --help",
    "training-memory.base_dtype": "overrides the frozen base's format, which the form derives from the method "
                                  "(bf16 for lora, nf4 for qlora)",
    "fit.base_dtype": "overrides the frozen base's format, which the form derives from the method",
    "recommend.gpus": "restricts the ranking to the GPUs given (repeatable, custom: and mac: too); the form "
                      "ranks every catalog GPU and highlights one",
    "cost-breakeven.gpu_hours": "prices a run of known GPU-hours; the form estimates them from a model and tokens",
    "system-balance.offload": "names any of calculators.system.OFFLOADS; the form's checkbox picks 'optimizer'",
}


#: Calculators without a subcommand, and why.
NO_COMMAND: dict[str, str] = {
    "kv-cache": "one term of inference memory: 'mlhw infer' prints the KV cache with the other terms",
    "vision-training": "image classifiers: the command line's --model reads transformer configs only",
}


def face_only(table: dict[str, str], calculator: str, name: str) -> str | None:
    """Why ``name`` of ``calculator`` is on one face only (``table``: :data:`FORM_ONLY` or :data:`CLI_ONLY`).

    >>> face_only(FORM_ONLY, "fit", "job").startswith("the command line's")
    True
    >>> face_only(FORM_ONLY, "fit", "batch") is None
    True
    """
    return table.get(f"{calculator}.{name}", table.get(name))


def command_fields(calculator: Calculator) -> tuple[Field, ...]:
    """The fields that are options of the subcommand built from ``calculator``: its form's fields, in
    form order, less those the command line does not offer (:attr:`Field.faces
    <calculators.inputs.fields.Field.faces>`, :data:`FORM_ONLY`), then its ``cli_fields``.

    >>> from calculators.jobs.registry import get_calculator
    >>> [field.cli_flag for field in command_fields(get_calculator("inference-memory"))][:3]
    ['--model', '--weights', '--kv-cache']
    """
    shared = [field for field in calculator.fields
              if "cli" in field.faces and face_only(FORM_ONLY, calculator.name, field.name) is None]
    return (*shared, *calculator.cli_fields)


