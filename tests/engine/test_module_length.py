"""No module of ``calculators/`` passes 450 lines, but the listed ones, and that list only shrinks.

The house style (``STYLE.md``: "a module that passes ~400 lines is two subjects") asks for a split by
subject; 450 leaves room for a module near 400 to grow a little before it must split. A module listed in
:data:`LONG` may stay above it for the reason given, never growing past the length it had when listed; once it
is split below the limit, its line here must go. A generated data module (:data:`GENERATED`) is exempt: a
script writes it, its length follows the data.
"""

from __future__ import annotations

from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "calculators"

#: The most lines a module of the package may have.
MAX_LINES = 450

#: Module (relative to calculators/) -> (its length when listed: it may not grow past it, why it is not split yet).
LONG: dict[str, tuple[int, str]] = {}

#: Generated data modules, exempt: module -> the script that writes it.
GENERATED: dict[str, str] = {
    "catalog/engine_fits.py": "scripts/score_speed.py --write-fits (each engine's fitted constants with the ids of "
                              "the published figures behind each)",
    "catalog/utilisation_fit.py": "scripts/fit_speed_training.py (the training utilisation factors with the ids of "
                                  "the published runs behind each)",
}


def _lengths() -> dict[str, int]:
    return {path.relative_to(PACKAGE).as_posix(): len(path.read_text(encoding="utf-8").splitlines())
            for path in PACKAGE.rglob("*.py")}


def test_no_module_passes_the_limit_unless_listed() -> None:
    long = {name: lines for name, lines in _lengths().items()
            if lines > MAX_LINES and name not in LONG and name not in GENERATED}
    assert not long, f"modules over {MAX_LINES} lines (split them by subject): {long}"


def test_a_listed_module_only_shrinks() -> None:
    lengths = _lengths()
    for name, (listed, why) in LONG.items():
        assert why and name in lengths, name
        assert lengths[name] <= listed, f"{name} grew from {listed} to {lengths[name]} lines: split it instead"
        assert lengths[name] > MAX_LINES, f"{name} is {lengths[name]} lines now: remove it from LONG"


def test_the_exempt_modules_are_generated() -> None:
    # Each says so in its first line and names the script that writes it.
    for name, script in GENERATED.items():
        first = (PACKAGE / name).read_text(encoding="utf-8").splitlines()[0]
        assert "generated" in first.lower() or "written by" in first.lower(), (name, first)
        assert (PACKAGE.parent / script.split()[0]).is_file(), script
