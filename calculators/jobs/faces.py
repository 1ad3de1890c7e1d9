"""Which face offers which input of a named calculator: the web form, the ``mlhw`` command line, or both.

A calculator's fields are its form's inputs and its subcommand's options alike
(:attr:`~calculators.inputs.fields.Field.faces`); an input one face lacks is named here with the
reason, in :data:`FORM_ONLY` or :data:`CLI_ONLY`, and a calculator without a subcommand in
:data:`NO_COMMAND` (``tests/tools/test_one_declaration.py`` checks that every entry names an input).

>>> face_only(FORM_ONLY, "fit", "job").startswith("the command line's")
True
"""

from __future__ import annotations

from calculators.inputs.shared import CUSTOM_GPU_NAMES

#: Why a custom GPU's numbers are form inputs only.
_CUSTOM_GPU_WHY = "a custom GPU's numbers: the command line spells them in one --gpu custom:memory_gb=N,... or mac:GB"

#: Form inputs without a command-line option, and why: ``name`` (every calculator) or ``calculator.name``.
FORM_ONLY: dict[str, str] = {
    "config": "a pasted config.json's text; the command line's --model takes a path to the file instead",
    **{name: _CUSTOM_GPU_WHY for name in CUSTOM_GPU_NAMES},
    "fit.job": "the command line's 'fit train' and 'fit infer' subcommands (calculators.cli.FIT_JOBS)",
    "recommend.weights": "the form splits Workload.method by job (weights when serving, method when fine-tuning); "
                         "the command line's one --method takes either",
    "recommend.method": "the form's choice of a fine-tuning method; the command line's one --method takes a weights "
                        "format or a method (Workload.method)",
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
    "recommend.method": "one --method for every job: a weights format when serving, a method when training "
                        "(the form splits it into two choices)",
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
