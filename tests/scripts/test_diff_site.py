"""``scripts/diff_site.py`` lists what differs between two built sites (issue 13's proof that a refactor
changed no answer): files only in one site, a changed page's lines, a binary file's sizes."""

from __future__ import annotations

from pathlib import Path

import pytest
from support import load_script

diff_site = load_script("diff_site")


def _site(root: Path, files: dict[str, bytes]) -> Path:
    for name, data in {"index.html": b"<p>home</p>\n", **files}.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_bytes(data)
    return root


def test_identical_sites_report_nothing(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    files = {"memory/index.html": b"<td>1.00</td>\n", "assets/x.whl": b"\x00\x01"}
    before, after = _site(tmp_path / "a", files), _site(tmp_path / "b", files)
    assert diff_site.main([str(before), str(after), "--exit-code"]) == 0
    assert capsys.readouterr().out == "the two sites are byte-identical\n"


def test_a_changed_cell_an_added_page_and_a_binary_are_each_reported(tmp_path: Path) -> None:
    before = _site(tmp_path / "a", {"memory/index.html": b"<td>1.00</td>\n<td>x</td>\n", "w.whl": b"\x00"})
    after = _site(tmp_path / "b", {"memory/index.html": b"<td>1.25</td>\n<td>x</td>\n", "w.whl": b"\x00\x01",
                                   "new/index.html": b"<p>new</p>\n"})
    report = diff_site.compare(before, after, lines=10)
    assert f"only in {after}: new/index.html" in report
    assert "differs: w.whl (1 -> 2 bytes)" in report
    assert "differs: memory/index.html" in report
    assert "    -<td>1.00</td>" in report and "    +<td>1.25</td>" in report
    assert diff_site.main([str(before), str(after), "--exit-code", "--lines", "0"]) == 1


def test_a_folder_that_is_not_a_built_site_is_refused(tmp_path: Path) -> None:
    with pytest.raises(SystemExit):
        diff_site.main([str(tmp_path), str(tmp_path)])


def test_the_masks_leave_a_form_only_change_and_a_new_runtime_out(tmp_path: Path) -> None:
    # What issue 13 needs proven: a change that adds an input to a form and rebuilds the runtime leaves every
    # answer a reader sees as it was. The masks hide exactly that; a changed answer still shows.
    page = '<link href="w.js?v={hash}"><form class="mlhw-form" a>{form}</form><div>{answer}</div>\n'
    before = _site(tmp_path / "a", {"p/index.html": page.format(hash="0" * 16, form="in", answer="16 GiB").encode()})
    after = _site(tmp_path / "b", {"p/index.html": page.format(hash="1" * 16, form="in+", answer="16 GiB").encode()})
    assert diff_site.compare(before, after, lines=0) == ["differs: p/index.html"]
    assert diff_site.compare(before, after, lines=0, same_runtime=True) == ["differs: p/index.html"]
    assert diff_site.compare(before, after, lines=0, same_runtime=True, no_forms=True) == []
    changed = _site(tmp_path / "c", {"p/index.html": page.format(hash="1" * 16, form="in+", answer="17 GiB").encode()})
    assert diff_site.compare(before, changed, lines=0, same_runtime=True, no_forms=True) == ["differs: p/index.html"]
