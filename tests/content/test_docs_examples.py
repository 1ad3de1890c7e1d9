"""The ``pycon`` and ``python`` examples in docs/ run, and print what the page says.

```pycon blocks are run as doctests (each block's expected output must match exactly);
```python blocks are executed and must not raise. Both import the installed package, so
a page cannot show an example the code no longer supports.
"""

from __future__ import annotations

import doctest
import re
from pathlib import Path

import pytest

DOCS = Path(__file__).resolve().parents[2] / "docs"
FENCE = re.compile(r"^```(?P<lang>pycon|python)[^\n]*\n(?P<body>.*?)^```", re.DOTALL | re.MULTILINE)


def _blocks() -> list[tuple[str, str, str]]:
    found = []
    for page in sorted(DOCS.rglob("*.md")):
        text = page.read_text(encoding="utf-8")
        for number, match in enumerate(FENCE.finditer(text), start=1):
            line = text.count("\n", 0, match.start()) + 1
            found.append((f"{page.relative_to(DOCS)}:{line}", match.group("lang"), match.group("body")))
    return found


BLOCKS = _blocks()


@pytest.mark.parametrize(("where", "lang", "body"), BLOCKS, ids=[b[0] for b in BLOCKS])
def test_docs_example_runs(where: str, lang: str, body: str) -> None:
    if lang == "python":
        exec(compile(body, where, "exec"), {"__name__": "__docs_example__"})
        return
    parser = doctest.DocTestParser()
    test = parser.get_doctest(body, {}, where, where, 0)
    runner = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE | doctest.ELLIPSIS)
    output: list[str] = []
    runner.run(test, out=output.append)
    assert runner.failures == 0, "".join(output)


def test_the_extractor_finds_and_fails_a_wrong_example() -> None:
    """Prove the check can fail: a pycon block with a wrong expected value."""
    body = ">>> 1 + 1\n3\n"
    test = doctest.DocTestParser().get_doctest(body, {}, "demo", "demo", 0)
    runner = doctest.DocTestRunner()
    runner.run(test, out=lambda _text: None)
    assert runner.failures == 1
    assert any(lang == "pycon" for _where, lang, _body in BLOCKS)
