"""The package's modules import downwards only, and no two modules import each other.

Layers, lowest first (a module may import its own layer and those below):

0. ``errors``, ``dtypes``, ``version``, ``units``, ``columns``, ``tables``, ``site_addresses``, ``table_files``,
   ``inline_values``: words,
   units and the generic table machinery, which knows no page.
1. ``config_input``, ``model``, ``model_shapes``, ``model_layers``, ``model_vision``, ``model_residual``, ``model_towers``,
   ``model_config``, ``quantization``, ``encoder``:
   what a model is and how a config.json (its ``quantization_config`` too; an encoder's) is read.
2. ``catalog``, ``validate``, ``dtype_support``: facts with sources, and the checks of inputs against them.
3. ``inputs``: the front door: the one reading of a model and of a GPU as a user names them, and the
   declaration of every input (``Field``) that the faces share. Nothing in the catalog resolves a user's
   input; the engine above resolves once, at its entry points, and passes records down.
4. ``memory``; 5. ``fit``, ``fit_encoder``, ``model_flops`` (FLOP counts per token); 6. ``parallel``;
   7. ``performance``, ``cost``, ``system``, ``checkpoint``,
   ``serving``: the engine.
8. ``recommend`` (and ``recommend_inputs``, ``recommend_result``) and the checks against measurements and claims (``claims``, ``accuracy*``,
   ``measurements``, ``peers``, ``rules_of_thumb``, ``speed_accuracy``).
9. ``doc_tables``; 10. ``doc_values``; 11. ``table_registry``: the pages' content.
12. ``jobs``: the named calculators every face shares (their inputs, compute, and text, HTML and data views).
13. ``widgets``, ``commands``; 14. ``cli``, ``__main__`` and the package itself: the faces.

Every import counts, including those inside functions (an import deferred to break a
cycle is still a cycle). ``from calculators import cost`` imports ``calculators.cost``.
"""

from __future__ import annotations

import ast
import re
from collections import defaultdict
from itertools import takewhile
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "calculators"

LAYER_OF_AREA: dict[str, int] = {
    "errors": 0, "dtypes": 0, "version": 0, "units": 0, "columns": 0, "tables": 0, "site_addresses": 0, "table_files": 0,
    "inline_values": 0,
    "config_input": 1, "model": 1, "model_shapes": 1, "model_layers": 1, "model_vision": 1, "model_residual": 1,
    "model_towers": 1,
    "model_config": 1, "quantization": 1, "encoder": 1,
    "catalog": 2, "validate": 2, "dtype_support": 2,
    "inputs": 3,
    "memory": 4,
    "fit": 5, "fit_encoder": 5, "model_flops": 5,
    "parallel": 6,
    "performance": 7, "cost": 7, "system": 7, "checkpoint": 7, "serving": 7,
    "recommend": 8, "recommend_inputs": 8, "recommend_result": 8, "claims": 8, "accuracy": 8, "accuracy_real_gpu": 8, "measurements": 8, "peers": 8,
    "rules_of_thumb": 8, "speed_accuracy": 8,
    "doc_tables": 9,
    "doc_values": 10,
    "table_registry": 11,
    "jobs": 12,
    "widgets": 13, "commands": 13,
    "cli": 14, "__main__": 14, "": 14,
}


def _modules() -> dict[str, Path]:
    found = {}
    for path in PACKAGE.rglob("*.py"):
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        found[name] = path
    return found


def _graph() -> dict[str, set[str]]:
    modules = _modules()
    graph: dict[str, set[str]] = defaultdict(set)
    for name, path in modules.items():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            targets: list[str] = []
            if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                submodules = [f"{node.module}.{alias.name}" for alias in node.names]
                named = [target for target in submodules if target in modules]
                # `from calculators import cost` imports the submodule, not the package's __init__
                targets = named if len(named) == len(submodules) else [node.module, *named]
            elif isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            graph[name].update(t for t in targets if t in modules and t != name)
    return graph


def _area(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else ""


def test_every_area_has_a_layer() -> None:
    missing = sorted({_area(name) for name in _modules()} - set(LAYER_OF_AREA))
    assert not missing, f"assign a layer to {missing} in LAYER_OF_AREA (and the docstring)"


def test_no_module_imports_from_a_layer_above_it() -> None:
    upward = [f"{a} (layer {LAYER_OF_AREA.get(_area(a))}) imports {b} (layer {LAYER_OF_AREA.get(_area(b))})"
              for a, targets in _graph().items() for b in sorted(targets)
              if LAYER_OF_AREA.get(_area(b), 99) > LAYER_OF_AREA.get(_area(a), 99)]
    assert not upward, "\n".join(upward)


def _cycles(graph: dict[str, set[str]]) -> list[str]:
    """Every back edge of a depth-first walk, as the chain of imports that closes it."""
    cycles: list[str] = []
    state: dict[str, int] = {}  # 1 = on the stack, 2 = done

    def visit(node: str, path: list[str]) -> None:
        state[node] = 1
        for target in sorted(graph.get(node, ())):
            if state.get(target) == 1:
                chain = [*path, node]
                cycles.append(" -> ".join(chain[chain.index(target):] + [target]))
            elif target not in state:
                visit(target, [*path, node])
        state[node] = 2

    for module in sorted(graph):
        if module not in state:
            visit(module, [])
    return cycles


def test_no_two_modules_import_each_other() -> None:
    cycles = _cycles(_graph())
    assert not cycles, "\n".join(cycles)


def test_the_checks_can_fail() -> None:
    """The walker and the cycle finder on known inputs (a check of the checks)."""
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a -> b -> c -> a"]
    assert _cycles({"a": {"b"}, "b": set()}) == []
    graph = _graph()
    assert "calculators.cost" in graph["calculators.recommend"]  # `from calculators import cost`
    assert "calculators" not in graph["calculators.recommend"]
    assert "calculators.memory.training" in graph["calculators.fit"]


#: The modules that read a user's model or GPU (import the one reader of each): the engine's entry points
#: (which resolve once and pass the records down) and the faces. A module below them takes records.
RESOLVING_MODULES = {
    "calculators", "calculators.inputs", "calculators.inputs.gpu", "calculators.inputs.model",
    "calculators.fit", "calculators.fit_encoder", "calculators.parallel.cluster", "calculators.performance.inference_speed",
    "calculators.performance.served", "calculators.recommend",
    "calculators.jobs.values",
}


def test_only_entry_points_and_faces_resolve_a_model_or_a_gpu() -> None:
    readers = {"calculators.inputs.gpu", "calculators.inputs.model"}
    resolving = {module for module, targets in _graph().items() if targets & readers}
    unexpected = sorted(resolving - RESOLVING_MODULES)
    assert not unexpected, f"{unexpected} resolve a model or GPU: take a record instead (or add an entry point here)"
    assert "calculators.jobs.values" in resolving and "calculators.fit" in resolving  # the check can fail


def test_the_command_line_does_not_import_the_web_face() -> None:
    """The CLI builds its subcommands from the named calculators of ``jobs``, which the web face shares; it
    imports nothing of ``widgets`` (the form, the browser API, the copies), and ``widgets`` nothing of it."""
    graph = _graph()
    faces = [name for name in graph if name == "calculators.cli" or name.startswith("calculators.commands")]
    wrong = sorted(f"{name} imports {target}" for name in faces for target in graph[name]
                   if target.startswith("calculators.widgets"))
    wrong += sorted(f"{name} imports {target}" for name in graph if name.startswith("calculators.widgets")
                    for target in graph[name] if target == "calculators.cli" or target.startswith("calculators.commands"))
    assert faces and not wrong, "\n".join(wrong)
    assert "calculators.jobs.registry" in graph["calculators.cli"]  # the check can fail: the CLI uses jobs


def test_the_contributing_guide_names_the_layers() -> None:
    """docs/reference/contributing.md lists the layers, lowest first, one table row each, with every area."""
    guide = (PACKAGE.parent / "docs" / "reference" / "contributing.md").read_text(encoding="utf-8")
    header = guide.index("| layer | areas of `calculators/`")
    rows = takewhile(lambda line: line.startswith("|"), guide[header:].splitlines()[2:])
    listed = [set(re.findall(r"`([a-z_]+)`", row.split(" | ")[1])) for row in rows]
    expected = [{area for area, layer in LAYER_OF_AREA.items() if layer == number and area}
                for number in range(max(LAYER_OF_AREA.values()) + 1)]
    assert listed == expected
