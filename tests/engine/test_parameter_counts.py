"""No function of the package takes more than 8 parameters (issue #29 stage 2: records, not retyped settings).

Settings that belong together travel as a record checked once (``ServedModel``, ``Load``,
``InferenceRequest``, ``SpeedSetup``, ``HostJob``...) or, for a declaration helper, as one typed group
(``Shown``, ``DenseRates``, ``Published``). ``self``/``cls`` do not count; ``*args`` and ``**kwargs`` count one each.
"""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "calculators"
MOST = 8

def _count(arguments: ast.arguments) -> int:
    names = [a.arg for a in (*arguments.posonlyargs, *arguments.args)]
    own = 1 if names and names[0] in ("self", "cls") else 0
    return (len(names) - own + len(arguments.kwonlyargs) + (arguments.vararg is not None)
            + (arguments.kwarg is not None))


def over(source: str) -> list[tuple[str, int]]:
    """``(name, parameters)`` of each function in ``source`` over :data:`MOST`."""
    return [(node.name, _count(node.args)) for node in ast.walk(ast.parse(source))
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and _count(node.args) > MOST]


def test_the_counter_counts() -> None:
    # A check of the check: nine keywords are one too many, a method's self is not counted, **kwargs is one.
    assert over("def f(a, *, b, c, d, e, f, g, h, i): pass") == [("f", 9)]
    assert over("class C:\n    def m(self, a, b, c, d, e, f, g, h): pass") == []
    assert over("def f(a, b, c, d, e, f, g, *rest, **more): pass") == [("f", 9)]


def test_no_function_takes_more_than_eight_parameters() -> None:
    found = [f"{path.relative_to(PACKAGE).as_posix()}:{name} ({count})"
             for path in sorted(PACKAGE.rglob("*.py")) for name, count in over(path.read_text(encoding="utf-8"))]
    assert not found, f"functions over {MOST} parameters (group them into a record): {found}"
