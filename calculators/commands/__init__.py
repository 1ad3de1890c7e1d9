"""Extra ``mlhw`` subcommands, one module each, discovered by :mod:`calculators.cli`.

A module here defines:

* ``COMMAND``: the subcommand name (``speed``, ``cost``, ...);
* ``ENGINES``: the engine functions whose keywords its options feed; each option is named
  after one of their keywords (``dest``) and takes that keyword's default from the
  signature (:func:`engine_option`), so the option, the widget form and the engine cannot
  disagree (``tests/tools/test_faces_agree.py`` walks every option);
* ``add_arguments(parser)``: adds its options to the subparser (``--json`` is added for it);
* ``run(args) -> tuple[data, text]``: computes; ``data`` is JSON-ready, ``text`` is what
  is printed without ``--json``. Bad input raises a
  :class:`~calculators.errors.CalculatorError`, which the CLI reports in one line.

Optionally ``FLAGS`` (engine argument -> the flag that carries it, for error messages) and
``SCALED`` (option -> the engine keyword it feeds and how many of the option's units make one
of the keyword's, such as 1e6 microseconds per second).
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import Any

from calculators.validate import AUTO, default_of, none_if_auto


def engine_option(parser: argparse.ArgumentParser, flag: str, engine: Callable[..., Any], *, help: str,
                  name: str | None = None, keyword: str | None = None, scale: float = 1.0,
                  **options: Any) -> None:
    """Add ``flag``, whose default is the default of ``engine``'s keyword ``name``.

    ``name`` (the flag without dashes, ``-`` read as ``_``, unless given) is also the
    option's ``dest``, so ``args.<name>`` is what the engine takes. An option in another unit
    than its keyword names the ``keyword`` and the ``scale``: how many of the option's units
    make one of the keyword's (``1e6``: the option is in microseconds, the keyword in seconds;
    the command divides by it). A keyword whose default is ``None`` (the engine chooses) also
    takes ``auto``, the command line's one spelling of "the engine's default". The help ends
    with the default, spelled one way: ``(default: 4096)``, ``(default: auto)``.

    >>> parser = argparse.ArgumentParser()
    >>> from calculators.parallel.step import step_communication
    >>> engine_option(parser, "--seq", step_communication, help="tokens")
    >>> engine_option(parser, "--efficiency", step_communication, help="fraction")
    >>> args = parser.parse_args(["--efficiency", "auto"])
    >>> args.seq, args.efficiency
    (2048, None)
    """
    dest = name or flag.removeprefix("--").replace("-", "_")
    default = default_of(engine, keyword or dest)
    if default is not None and scale != 1.0:
        default = default * scale
    if options.get("action") is None:
        if default is None:
            options["type"] = none_if_auto
        help = f"{help} (default: {AUTO if default is None else '%(default)s'})"
    parser.add_argument(flag, dest=dest, default=default, help=help, **options)
