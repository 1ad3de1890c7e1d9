"""Extra ``mlhw`` subcommands, one module each, discovered by :mod:`calculators.cli`.

A module here defines:

* ``COMMAND``: the subcommand name (``speed``, ``cost``, ...);
* ``add_arguments(parser)``: adds its options to the subparser (``--json`` is added for it);
* ``run(args) -> tuple[data, text]``: computes; ``data`` is JSON-ready, ``text`` is what
  is printed without ``--json``. Bad input raises a
  :class:`~calculators.errors.CalculatorError`, which the CLI reports in one line.
"""
