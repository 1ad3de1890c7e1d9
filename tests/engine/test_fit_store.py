"""The held-out fits' store (calculators/speed_accuracy/fit_store.py): off unless named, keyed on inputs and code.

A process reads an entry only when it names the folder (``MLHW_FIT_STORE``), the inputs' ``repr`` is the same
and every file of the package is the same; an entry it cannot read back is made again.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from calculators.speed_accuracy import fit_store


def _never() -> dict[str, float]:
    raise AssertionError("made again where the store holds it")


def test_without_a_folder_nothing_is_kept(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(fit_store.STORE_VARIABLE, raising=False)
    calls = []
    for _ in range(2):
        assert fit_store.stored("fits", (1, 0.5), lambda: calls.append(1) or {"a": 1.0}) == {"a": 1.0}
    assert calls == [1, 1]
    monkeypatch.setenv(fit_store.STORE_VARIABLE, "")  # empty: off too (the second release build's setting)
    assert fit_store.stored("fits", (1, 0.5), lambda: calls.append(1) or {"a": 1.0}) == {"a": 1.0}
    assert calls == [1, 1, 1] and list(tmp_path.iterdir()) == []


def test_a_second_call_reads_what_the_first_kept(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = tmp_path / "store"
    monkeypatch.setenv(fit_store.STORE_VARIABLE, str(folder))
    made = fit_store.stored("fits", ("source", 0.1), lambda: {"bandwidth_efficiency": 0.8125})
    assert fit_store.stored("fits", ("source", 0.1), _never) == made == {"bandwidth_efficiency": 0.8125}
    assert [path.name.startswith("fits-") and path.suffix == ".pickle" for path in folder.iterdir()] == [True]
    # Other inputs (a float that differs in its last digits), or another kind, are another entry.
    assert fit_store.stored("fits", ("source", 0.1 + 2**-56), lambda: {"other": 1.0}) == {"other": 1.0}
    assert fit_store.stored("scores", ("source", 0.1), lambda: {"scores": 2.0}) == {"scores": 2.0}
    assert len(list(folder.iterdir())) == 3


def test_an_unreadable_entry_is_made_again(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(fit_store.STORE_VARIABLE, str(tmp_path))
    (tmp_path / fit_store.entry_name("fits", (3,))).write_bytes(b"cut sho")
    assert fit_store.stored("fits", (3,), lambda: [1.5]) == [1.5]
    assert fit_store.stored("fits", (3,), _never) == [1.5]  # and rewritten whole


def test_the_entry_name_follows_every_file_of_the_package(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    package = tmp_path / "calculators"
    (package / "speed_accuracy").mkdir(parents=True)
    (package / "speed_accuracy" / "fit.py").write_text("GOLDEN = 0.618\n", encoding="utf-8")
    (package / "catalog.json").write_text("{}", encoding="utf-8")
    monkeypatch.setattr(fit_store, "_PACKAGE", package)
    names = []
    for change in (None, ("speed_accuracy/fit.py", "GOLDEN = 0.6180\n"), ("catalog.json", '{"a": 1}'),
                   ("speed_accuracy/new.py", "")):
        if change:
            (package / change[0]).write_text(change[1], encoding="utf-8")
        fit_store._code_digest.cache_clear()
        names.append(fit_store.entry_name("fits", (1,)))
    fit_store._code_digest.cache_clear()  # the real package's digest for the rest of the process
    assert len(set(names)) == 4
