"""``scripts/diff_tables.py`` lists every generated-table cell that changed between two revisions.

Each test builds a throwaway git repository with two commits of a small page and runs the
script's ``main`` on it, so the output is checked exactly as a reader would see it.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from support import load_script

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="needs git")


diff_tables = load_script("diff_tables")

PAGE_V1 = """# Demo

<!-- table: demo-memory -->

<div class="generated-table" id="demo-memory"></div>

| model | batch | GiB | note |
|:--|--:|--:|:--|
| small | 1 | 1.00 | a \\| b |
| small | 8 | 4.00 | |
| large | 1 | 10.00 | |

*Table demo-memory (v0.1.0). Demo.*
<!-- /table -->

<!-- table: demo-gone -->

| a | b |
|:--|:--|
| x | 1 |

<!-- /table -->

| hand | typed |
|--|--|
| outside | 5 |
"""

PAGE_V2 = """# Demo

<!-- table: demo-memory -->

<div class="generated-table" id="demo-memory"></div>

| model | batch | GiB | note |
|:--|--:|--:|:--|
| small | 1 | 1.25 | a \\| c |
| small | 8 | 4.00 | |
| huge | 1 | 99.00 | |

*Table demo-memory (v0.2.0). Demo, captions do not count.*
<!-- /table -->

!!! note

    <!-- table: demo-new -->

    | a |
    |:--|
    | y |

    <!-- /table -->

| hand | typed |
|--|--|
| outside | 6 |
"""


def _git(repo: Path, *args: str) -> None:
    subprocess.run(["git", "-c", "user.name=test", "-c", "user.email=test@example.invalid", "-c",
                    "commit.gpgsign=false", *args], cwd=repo, check=True, capture_output=True)


@pytest.fixture()
def repo(tmp_path: Path) -> Path:
    """A repository whose docs/demo.md changes between tag v0.1.0 and the branch head."""
    (tmp_path / "docs").mkdir()
    _git(tmp_path, "init", "-q", "-b", "main")
    (tmp_path / "docs" / "demo.md").write_text(PAGE_V1, encoding="utf-8")
    _git(tmp_path, "add", "docs")
    _git(tmp_path, "commit", "-q", "-m", "v1")
    _git(tmp_path, "tag", "v0.1.0")
    (tmp_path / "docs" / "demo.md").write_text(PAGE_V2, encoding="utf-8")
    _git(tmp_path, "commit", "-q", "-am", "v2")
    return tmp_path


EXPECTED = [
    "demo-gone | table removed (was on demo.md)",
    "demo-memory | small / 1 | GiB: 1.00 → 1.25",
    "demo-memory | small / 1 | note: a | b → a | c",
    "demo-memory | large / 1 | row removed: large | 1 | 10.00 | ",
    "demo-memory | huge / 1 | row added: huge | 1 | 99.00 | ",
    "demo-new | table added on demo.md",
]


def test_lists_every_changed_cell(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert diff_tables.main(["HEAD~1", "HEAD", "--repo", str(repo)]) == 0
    assert capsys.readouterr().out.splitlines() == EXPECTED


def test_released_version_resolves_to_its_tag(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert diff_tables.main(["0.1.0", "main", "--repo", str(repo), "--exit-code"]) == 1
    assert capsys.readouterr().out.splitlines() == EXPECTED


def test_same_revision_reports_nothing(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert diff_tables.main(["v0.1.0", "v0.1.0", "--repo", str(repo), "--exit-code"]) == 0
    captured = capsys.readouterr()
    assert captured.out == ""
    assert "no table changed" in captured.err


def test_worktree_is_compared_as_it_is_on_disk(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (repo / "docs" / "demo.md").write_text(PAGE_V2.replace("| 4.00 |", "| 4.50 |"), encoding="utf-8")
    assert diff_tables.main(["HEAD", "WORKTREE", "--repo", str(repo)]) == 0
    assert capsys.readouterr().out.splitlines() == ["demo-memory | small / 8 | GiB: 4.00 → 4.50"]


def test_unknown_revision_is_an_error(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert diff_tables.main(["9.9.9", "HEAD", "--repo", str(repo)]) == 2
    assert "neither a git revision nor a release tag v9.9.9" in capsys.readouterr().err


def test_columns_added_and_removed_are_listed() -> None:
    old = diff_tables.ParsedTable("t", ("model", "GiB"), (("a", "1"),), 1)
    new = diff_tables.ParsedTable("t", ("model", "GB"), (("a", "1.07"),), 1)
    assert diff_tables.diff_table("t", old, new) == ["t | column removed: GiB", "t | column added: GB"]


def test_parser_reads_tables_inside_admonitions_and_unescapes_pipes() -> None:
    tables = diff_tables.parse_tables(PAGE_V2)
    assert [(t.block, t.line) for t in tables] == [("demo-memory", 7), ("demo-new", 20), (None, 26)]
    assert tables[0].rows[0] == ("small", "1", "1.25", "a | c")
    assert tables[1].columns == ("a",)
