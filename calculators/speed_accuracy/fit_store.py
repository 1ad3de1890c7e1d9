"""An optional folder that keeps the held-out fits and scores for the other processes of one build-and-test run.

The cross-validated scores refit the speed model once per held-out group (every source, engine and
hardware generation left out in turn: about 20 CPU-seconds on one core) and score every figure with
those fits (about 9 more), and every process that renders the site's tables needs them: ``scripts/build``, each release build of the test suite, the test worker
that checks the tables. ``scripts/test`` names a folder in ``MLHW_FIT_STORE`` (emptied at its start), so
that a process can read the fits an earlier one made of the same inputs with the same code instead of
making them again. Unset or empty (the default, the CLI, the browser): nothing is read or written.

An entry is named by a SHA-256 digest of everything the fits are a function of:

- the inputs, by their ``repr`` (frozen dataclasses, tuples, and the figures as read from their JSON
  files: strings, integers and floats; a float's ``repr`` reads back as the same float);
- every file of the ``calculators`` package (the fit's code, the engine catalog's starting values);
- the Python version and the machine (the same float arithmetic).

Different inputs or code give a different name, never a stale answer. A file that cannot be read back
is made again. Writes go to a temporary file renamed into place, so two processes making the same entry
at once both leave a whole one.

>>> stored("demo", (1, 2.5), lambda: {"made": True})
{'made': True}
"""

from __future__ import annotations

import functools
import hashlib
import os
import pickle
import platform
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

#: The environment variable naming the folder (unset or empty: no store).
STORE_VARIABLE = "MLHW_FIT_STORE"

_PACKAGE = Path(__file__).resolve().parent.parent

T = TypeVar("T")


@functools.cache
def _code_digest() -> str:
    """SHA-256 over every file of the package (path and bytes, in path order), caches excluded."""
    digest = hashlib.sha256(f"{sys.version}|{platform.machine()}".encode())
    for path in sorted(p for p in _PACKAGE.rglob("*") if p.is_file() and "__pycache__" not in p.parts):
        digest.update(path.relative_to(_PACKAGE).as_posix().encode() + b"\0")
        digest.update(path.read_bytes() + b"\0")
    return digest.hexdigest()


def entry_name(kind: str, inputs: object) -> str:
    """The file name of ``kind``'s entry for ``inputs`` (their ``repr``) under the current code.

    >>> entry_name("demo", (1, 2.5)) == entry_name("demo", (1, 2.5)) != entry_name("demo", (1, 2.25))
    True
    """
    key = hashlib.sha256(f"{kind}|{_code_digest()}|{inputs!r}".encode()).hexdigest()
    return f"{kind}-{key}.pickle"


def stored(kind: str, inputs: object, make: Callable[[], T]) -> T:
    """``make()``, or what an earlier process of the run kept for the same ``kind``, ``inputs`` and code.

    ``inputs`` must determine ``make()``'s result together with the package's code, and their ``repr`` must
    show all of them (frozen dataclasses, tuples, lists and dicts of strings and numbers).
    """
    folder = os.environ.get(STORE_VARIABLE, "")
    if not folder:
        return make()
    path = Path(folder) / entry_name(kind, inputs)
    try:
        with path.open("rb") as file:
            kept: T = pickle.load(file)
        return kept
    except (OSError, pickle.UnpicklingError, EOFError):  # not there yet, or unreadable: make it again
        pass
    made = make()
    path.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.NamedTemporaryFile("wb", dir=path.parent, suffix=".part", delete=False) as part:
        pickle.dump(made, part, protocol=pickle.HIGHEST_PROTOCOL)
    os.replace(part.name, path)
    return made
