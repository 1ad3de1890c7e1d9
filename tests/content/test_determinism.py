"""Everything the site publishes is the same under any hash seed.

Rendering twice in one process cannot catch an order that follows ``set`` or ``dict``
iteration of strings, because one process has one hash seed. This test regenerates
every page, every table's CSV and JSON, the values file, every widget's default HTML
and a fixed set of CLI answers in two fresh interpreters with different
``PYTHONHASHSEED`` values, and compares digests of the two.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

#: Runs in a subprocess; prints one line per published artefact: ``name sha256``.
_PROGRAM = r"""
import hashlib, io, json, contextlib
from pathlib import Path
from calculators.table_registry import all_tables, regenerate_pages, values_json
from calculators.table_files import to_csv, to_json
from calculators.widgets.api import widget_html
from calculators.jobs.registry import calculator_names
from calculators.cli import run

def digest(text):
    return hashlib.sha256(text.encode("utf-8")).hexdigest()

docs = Path("docs")
pages = {p.relative_to(docs).as_posix(): p.read_text(encoding="utf-8") for p in sorted(docs.rglob("*.md"))}
for path, text in sorted(regenerate_pages(pages).items()):
    print("page", path, digest(text))
for table_id, function in sorted(all_tables().items()):
    table = function()
    print("table", table_id, digest(to_csv(table) + to_json(table, version="v")))
print("values", digest(values_json(pages)))
for name in calculator_names():
    print("widget", name, digest(widget_html(name)))
for argv in (["models"], ["gpus"], ["fit", "--model", "llama-3-8b", "infer", "--context", "8192"],
             ["recommend", "--model", "llama-3-8b"], ["speed", "--model", "llama-3-8b", "--gpu", "h100-sxm"]):
    data, text = run(argv)
    print("cli", "_".join(argv), digest(json.dumps(data, sort_keys=False) + text))
"""


def _digests(*seeds: str) -> list[list[str]]:
    """The digest lines of one interpreter per seed; the interpreters run at once (one per core)."""
    started = [subprocess.Popen([sys.executable, "-c", _PROGRAM], cwd=ROOT, text=True, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE,
                                env={**os.environ, "PYTHONHASHSEED": seed, "PYTHONPATH": str(ROOT)})
               for seed in seeds]
    outputs = []
    for process in started:
        stdout, stderr = process.communicate(timeout=600)
        assert process.returncode == 0, stderr[-3000:]
        outputs.append(stdout.splitlines())
    return outputs


def test_published_output_does_not_depend_on_the_hash_seed() -> None:
    first, second = _digests("1", "4242")
    assert len(first) > 100  # pages, tables, widgets and CLI answers were all produced
    differing = [a.rsplit(" ", 1)[0] for a, b in zip(first, second, strict=True) if a != b]
    assert not differing, f"differs between hash seeds: {differing}"
