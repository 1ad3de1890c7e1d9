"""What the site does not build is the same under any hash seed too.

Rendering twice in one process cannot catch an order that follows ``set`` or ``dict``
iteration of strings, because one process has one hash seed. The published site (every page,
every table's CSV and JSON, the values file, the widgets' built HTML) is checked under two
hash seeds by ``tests/scripts/test_site_build.py``, whose two release builds run with different
``PYTHONHASHSEED`` values and must be identical byte for byte. This test covers the rest in two
fresh interpreters with different seeds: every widget's default HTML (some calculators are not
on a page) and a fixed set of CLI answers, compared by digest.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

#: Runs in a subprocess; prints one line per answer: ``kind name sha256``.
_PROGRAM = r"""
import hashlib, json
from calculators.widgets.api import widget_html
from calculators.jobs.registry import calculator_names
from calculators.cli import run

def digest(text):
    return hashlib.sha256(text.encode("utf-8")).hexdigest()

for name in calculator_names():
    print("widget", name, digest(widget_html(name)))
for argv in (["models"], ["gpus"], ["fit", "--model", "llama-3-8b", "infer", "--context", "8192"],
             ["recommend", "--model", "llama-3-8b"], ["speed", "--model", "llama-3-8b", "--gpu", "h100-sxm"],
             ["train-time", "--model", "llama-3-8b", "--gpu", "h100-sxm", "--gpus", "8", "--tokens", "1e9"]):
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


def test_widgets_and_cli_answers_do_not_depend_on_the_hash_seed() -> None:
    first, second = _digests("1", "4242")
    assert sum(line.startswith("widget ") for line in first) >= 10 and sum(line.startswith("cli ") for line in first) == 6
    differing = [a.rsplit(" ", 1)[0] for a, b in zip(first, second, strict=True) if a != b]
    assert not differing, f"differs between hash seeds: {differing}"
