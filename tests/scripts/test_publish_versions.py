"""``scripts/publish_versions.py`` publishes versions side by side, as mike lays them out.

Two versions are built into a temporary folder with a stub build command (a real build takes
a minute), then the layout, ``versions.json`` (mike's format, which Material's selector
reads) and the redirects are checked; the expected layout is mike's documented one
(``OUT/VERSION/``, ``OUT/versions.json`` with ``version``, ``title``, ``aliases``).
"""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path

import pytest
from support import load_script

ROOT = Path(__file__).resolve().parents[2]


publish_versions = load_script("publish_versions")

#: A stand-in for mkdocs: writes two pages naming SITE_VERSION and the selector setting.
STUB = """
import os, pathlib, sys
site = pathlib.Path(sys.argv[1])
for page in ("index.html", "hardware/index.html"):
    path = site / page
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(os.environ["SITE_VERSION"] + " " + os.environ["MKDOCS_VERSION_PROVIDER"])
"""


@pytest.fixture(autouse=True)
def _published_address(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SITE_URL", "https://guide.example.org/sizing-ml-hardware/")


@pytest.fixture()
def stub(tmp_path: Path) -> str:
    script = tmp_path / "stub_build.py"
    script.write_text(STUB, encoding="utf-8")
    return f"{shlex.quote(sys.executable)} {shlex.quote(str(script))} {{site_dir}}"


def test_two_versions_side_by_side(tmp_path: Path, stub: str) -> None:
    out = tmp_path / "public"
    assert publish_versions.main(["0.1.0", "--alias", "latest", "--out", str(out), "--build-command", stub]) == 0
    assert publish_versions.main(["0.2.0", "--alias", "latest", "--out", str(out), "--build-command", stub]) == 0

    # Old version untouched: its pages still resolve and still name their own version.
    assert (out / "0.1.0" / "hardware" / "index.html").read_text() == "0.1.0 mike"
    assert (out / "0.2.0" / "hardware" / "index.html").read_text() == "0.2.0 mike"
    # mike's versions.json: newest first, the alias moved to the new version.
    assert json.loads((out / "versions.json").read_text()) == [
        {"version": "0.2.0", "title": "0.2.0", "aliases": ["latest"]},
        {"version": "0.1.0", "title": "0.1.0", "aliases": []},
    ]
    # The alias redirects page by page to the newest version, keeping the anchor; the root to the alias.
    alias_page = (out / "latest" / "hardware" / "index.html").read_text()
    assert 'location.replace("../../0.2.0/hardware/" + location.hash)' in alias_page
    assert 'url=../0.2.0/' in (out / "latest" / "index.html").read_text()
    assert 'location.replace("latest/"' in (out / "index.html").read_text()
    assert not [p for p in out.iterdir() if p.name.startswith(".build-")], "scratch folder left behind"


def test_republishing_a_version_replaces_only_that_version(tmp_path: Path, stub: str) -> None:
    out = tmp_path / "public"
    for version in ("0.1.0", "0.2.0", "0.1.0"):
        assert publish_versions.main([version, "--out", str(out), "--build-command", stub]) == 0
    assert [e["version"] for e in json.loads((out / "versions.json").read_text())] == ["0.2.0", "0.1.0"]
    assert (out / "index.html").read_text().count("0.2.0/") >= 1  # no alias: the newest version


def test_failed_build_changes_nothing(tmp_path: Path, stub: str, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "public"
    assert publish_versions.main(["0.1.0", "--alias", "latest", "--out", str(out), "--build-command", stub]) == 0
    before = (out / "versions.json").read_text()
    failing = f"{shlex.quote(sys.executable)} -c 'raise SystemExit(3)'"
    assert publish_versions.main(["0.2.0", "--alias", "latest", "--out", str(out), "--build-command", failing]) == 2
    assert "building version 0.2.0 failed" in capsys.readouterr().err
    assert (out / "versions.json").read_text() == before and not (out / "0.2.0").exists()


@pytest.mark.parametrize("argv", [["../x"], ["0.1.0", "--alias", "0.1.0"], ["versions.json"]])
def test_bad_names_are_refused(tmp_path: Path, stub: str, argv: list[str]) -> None:
    assert publish_versions.main([*argv, "--out", str(tmp_path), "--build-command", stub]) == 2


def test_version_order_is_numeric() -> None:
    entries = publish_versions.updated_versions([{"version": "0.9.0", "title": "0.9.0", "aliases": []}],
                                                version="0.10.0", title="0.10.0", aliases=[])
    assert [e["version"] for e in entries] == ["0.10.0", "0.9.0"]


def test_plain_build_leaves_the_selector_off() -> None:
    """mkdocs.yml enables Material's selector only when MKDOCS_VERSION_PROVIDER is set (no versions.json fetch)."""
    text = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    assert "provider: !ENV [MKDOCS_VERSION_PROVIDER, \"\"]" in text


@pytest.mark.parametrize("site_url", ["", "https://example.invalid/sizing-ml-hardware/", "http://127.0.0.1:8000/"])
def test_publishing_needs_a_real_site_url(tmp_path: Path, stub: str, site_url: str, monkeypatch: pytest.MonkeyPatch,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    # A release names its address in every citation (issue #17): no placeholder, no local server.
    monkeypatch.setenv("SITE_URL", site_url)
    out = tmp_path / "public"
    assert publish_versions.main(["0.1.0", "--out", str(out), "--build-command", stub]) == 2
    error = capsys.readouterr().err
    assert "site_url" in error and ("--site-url" in error or "SITE_URL" in error)
    assert not out.exists() or not (out / "0.1.0").exists()
