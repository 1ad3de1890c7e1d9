"""What the page and the build call: compute a widget's HTML from form values, never raising.

This module is all the JavaScript side calls (``docs/assets/pyodide-worker.js`` and
``scripts/make_snapshot.mjs``): :func:`compute_json`, :func:`share_json`, :func:`calculator_names`,
:func:`warm_up` and :func:`self_check`. The browser's worker calls :func:`compute_json` with the
form's values as JSON strings and gets JSON back: ``{"ok": true, "html": ...}`` or
``{"ok": false, "field": ..., "message": ...}`` where ``field`` is the form input to show the
message next to (or ``null`` for a message about the whole widget). The build calls :func:`widget_html`.

>>> import json
>>> json.loads(compute_json("kv-cache", '{"batch": "-1"}'))["field"]
'batch'
>>> reply = json.loads(compute_json("kv-cache", '{"model": "custom", "config": "{oops"}'))
>>> reply["ok"], reply["field"], reply["message"].startswith("config.json: got 'line 1 column 2")
(False, 'config', True)
>>> json.loads(compute_json("kv-cache", "{}"))["ok"]
True
>>> self_check()
True
>>> shared = json.loads(share_json("kv-cache", '{"batch": "2"}', "https://host/inference/?kv-cache-0.batch=2"))
>>> shared["ok"], shared["record"]["inputs"]["batch"], shared["markdown"].startswith("**KV cache**")
(True, '2', True)
"""

from __future__ import annotations

import json
from collections.abc import Mapping

from calculators.config_input import MAX_CONFIG_BYTES, check_json_depth
from calculators.errors import CalculatorError, InputError
from calculators.inputs.fields import Value
from calculators.jobs.calculator import Calculator
from calculators.widgets.form import form_markup, widget_markup
from calculators.jobs.registry import calculator_names, get_calculator

__all__ = ["calculator_names", "compute_json", "form_html", "self_check", "share_json", "warm_up", "widget_html"]

#: Longest form-values JSON parsed: room for a config.json at its size limit, escaped.
MAX_INPUTS_CHARS = 8 * MAX_CONFIG_BYTES

#: Shown when the calculators fail in a way no input check foresaw (a bug, not bad input).
INTERNAL_ERROR = "The calculator failed on these inputs (a bug, not your input); the result is not shown."


def _form_field(calculator: Calculator, error_field: str) -> str | None:
    """The form input an engine error belongs to: ``config.<key>`` errors go to ``config``."""
    names = {field.name for field in calculator.fields}
    head = error_field.split(".", 1)[0]
    if head in ("config", "json") and "config" in names:
        return "config"
    error_field = calculator.aliases.get(error_field, error_field)
    return error_field if error_field in names else None


def _labelled(calculator: Calculator, error: CalculatorError, form_field: str | None) -> str:
    """The message, naming the form input by its label as the reader sees it (``Micro-batch: got 0; ...``).

    Errors about a key inside the config keep the key (``config.hidden_size: ...``).
    """
    if not isinstance(error, InputError) or form_field is None:
        return str(error)
    if form_field == "config":
        return str(error.renamed("config.json")) if error.field == "config" else str(error)
    return str(error.renamed(calculator.field(form_field).label))


def compute_json(name: str, inputs_json: str) -> str:
    """The rendered result for form values as JSON; errors come back as data, never raised.

    Args:
        name: a calculator name (see :func:`calculators.jobs.registry.calculator_names`).
        inputs_json: a JSON object of form values, ``{"batch": "4", ...}``; absent inputs
            take their defaults.

    Returns:
        ``{"ok": true, "html": "..."}`` or ``{"ok": false, "field": "batch" | null,
        "message": "..."}``.
    """
    try:
        calculator = get_calculator(name)
    except CalculatorError as error:
        return json.dumps({"ok": False, "field": None, "message": str(error)})
    try:
        try:
            # The form sends a flat object of strings; nothing deeper or bigger is parsed
            # (deep recursion would break the browser's Python for good).
            if not isinstance(inputs_json, str) or len(inputs_json) > MAX_INPUTS_CHARS:
                raise ValueError("inputs")
            check_json_depth(inputs_json)
            # Numbers stay text, as a form sends them: the fields parse and range-check them
            # (a 5,000-digit integer is then a field error, not Python's conversion error).
            raw = json.loads(inputs_json, parse_int=str)
        except (TypeError, ValueError, RecursionError):  # InputError is a ValueError
            return json.dumps({"ok": False, "field": None, "message": "inputs: expected a JSON object of form values"})
        if not isinstance(raw, dict):
            return json.dumps({"ok": False, "field": None, "message": "inputs: expected a JSON object of form values"})
        html = calculator.run(raw)
    except CalculatorError as error:
        field = getattr(error, "field", None)
        mapped = _form_field(calculator, field) if isinstance(field, str) else None
        return json.dumps({"ok": False, "field": mapped, "message": _labelled(calculator, error, mapped)})
    except Exception:  # noqa: BLE001 - the page must get a message, never a traceback
        return json.dumps({"ok": False, "field": None, "message": INTERNAL_ERROR})
    return json.dumps({"ok": True, "html": html})


def self_check() -> bool:
    """True when the first calculator computes its defaults: a restored or new Python runtime works.

    The worker runs it after restoring a memory snapshot, and ``scripts/make_snapshot.mjs`` before
    taking one; which calculator is the registry's first is not named on the JavaScript side.
    """
    return bool(json.loads(compute_json(calculator_names()[0], "{}"))["ok"])


def warm_up() -> None:
    """Import every module of the package and compute each calculator once with its defaults.

    What goes into a Pyodide memory snapshot: a restored runtime has no files to import from, and
    first computes fill lazy caches (catalog lookups, fitted constants).
    """
    import importlib
    import pkgutil
    import sys

    package = sys.modules["calculators"]  # imported with this module, its parent
    for module in pkgutil.walk_packages(package.__path__, "calculators."):
        importlib.import_module(module.name)
    for name in calculator_names():
        compute_json(name, "{}")


def share_json(name: str, inputs_json: str, page_url: str) -> str:
    """The result for form values as a record to copy (:mod:`calculators.widgets.share`); never raises.

    Returns:
        ``{"ok": true, "record": {...}, "markdown": "..."}``, or the error reply of
        :func:`compute_json` for bad inputs.
    """
    from calculators.widgets.share import share_markdown, share_record

    checked = json.loads(compute_json(name, inputs_json))
    if not checked["ok"]:
        return json.dumps(checked)
    try:
        record = share_record(name, json.loads(inputs_json, parse_int=str), page_url=str(page_url)[:8192])
        return json.dumps({"ok": True, "record": record, "markdown": share_markdown(record)})
    except Exception:  # noqa: BLE001 - the page must get a message, never a traceback
        return json.dumps({"ok": False, "field": None, "message": INTERNAL_ERROR})


def _checked(calculator: Calculator, overrides: Mapping[str, object] | None) -> dict[str, Value]:
    """Overrides as the form shows them, after checking them (a bad one raises)."""
    given = dict(overrides or {})
    calculator.values(given)  # raises InputError naming the field
    return {key: calculator.field(key).parse(value) for key, value in given.items()}


def form_html(name: str, overrides: Mapping[str, object] | None = None, *, prefix: str = "") -> str:
    """The form of calculator ``name`` with ``overrides`` replacing its defaults.

    Raises :class:`~calculators.errors.InputError` for an unknown calculator, an unknown
    input or a value outside the input's range.
    """
    calculator = get_calculator(name)
    return form_markup(calculator, _checked(calculator, overrides), prefix=prefix or f"mlhw-{name}")


def widget_html(name: str, overrides: Mapping[str, object] | None = None, *, prefix: str = "") -> str:
    """Form plus the result for its values, computed now: what the build writes into a page.

    Raises :class:`~calculators.errors.InputError` as :func:`form_html` does.

    >>> html = widget_html("training-memory", {"batch": "2"})
    >>> 'data-calculator="training-memory"' in html and 'data-role="output"' in html
    True
    """
    calculator = get_calculator(name)
    raw = _checked(calculator, overrides)
    output = calculator.run(raw)
    return widget_markup(calculator, raw, output, prefix=prefix or f"mlhw-{name}")
