"""The HTML of a widget: its form (drawn from the fields) and the static result below it.

The markup carries the hooks the browser runtime and the tests use: the root has
``data-calculator`` and ``data-state``; each input sits in a ``data-field`` wrapper with
a ``data-role="error"`` slot; the result sits in ``data-role="output"``. Nothing here
needs JavaScript to read: with scripts off the page still shows the inputs and the
answer for them.

>>> from calculators.jobs.registry import get_calculator
>>> html = field_html(get_calculator("training-memory").field("batch"), 4, prefix="w0")
>>> '<input type="number" id="w0-batch" name="batch" value="4" min="1" max="65536" step="1"' in html
True
"""

from __future__ import annotations

from collections.abc import Mapping
from html import escape

from calculators.catalog.edition import catalog_as_of
from calculators.config_input import MAX_CONFIG_BYTES
from calculators.inputs.fields import NONE, NONE_SPELLINGS, Field, Value
from calculators.version import __version__
from calculators.jobs.calculator import Calculator
from calculators.widgets.fields import choice_texts

#: Shown under the result until the browser has recomputed it.
STATIC_STATUS = "Computed for the inputs shown when this page was built; change any input to recompute."
#: Shown instead when the page was opened from a file (the browser cannot start Python there).
FILE_NOTE = ("This page was opened from a file, so the calculator cannot run here: the result is for the inputs "
             "shown. Run scripts/serve and open http://127.0.0.1:8000/ to change them.")
NOSCRIPT_NOTE = "JavaScript is off: the result is for the inputs shown."
#: The copy buttons (shown by the page's script; a file:// page has no Python to compute a record).
SHARE_BUTTONS = (("link", "Copy link"), ("markdown", "Copy result (Markdown)"), ("json", "Copy result (JSON)"))
#: Shown under the buttons: what the link holds.
SHARE_HELP = ("The page address holds this calculator's inputs: a reload or a shared link restores them and "
              "recomputes. The copied result adds the outputs, the package version, the catalog edition and the link.")


def _attr(name: str, value: object) -> str:
    return f' {name}="{escape(str(value), quote=True)}"'


def _number(value: Value | None) -> str:
    """A number input's value, min, max or step, exactly: a whole float without its ".0"
    (1e9 shows as 1000000000), anything else as :func:`_text` ("" for None).

    >>> _number(1e9), _number(0.5), _number(8), _number(None)
    ('1000000000', '0.5', '8', '')
    """
    if value is None:
        return ""
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e16:
        return str(int(value))
    return _text(value)


def _text(value: Value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _unset(field: Field, value: Value) -> bool:
    """True when a field with a "none" choice holds it (its default, the empty value or ``none``)."""
    if not field.none_label:
        return False
    text = _text(value).strip().lower()
    if text in NONE_SPELLINGS:
        return True
    try:
        return float(text) == float(field.default)
    except ValueError:
        return False


def _none_choice(field: Field, unset: bool) -> str:
    """The select in front of a value whose "none" / "default" is a choice of its own, not a 0 to type (#15)."""
    return (f'<select data-role="optional"{_attr("aria-label", f"{field.label}: {field.none_label} or a value")}>'
            f'<option value="{NONE}"{" selected" if unset else ""}>{escape(field.none_label)}</option>'
            f'<option value="set"{"" if unset else " selected"}>Set a value</option></select>')


def field_html(field: Field, value: Value, *, prefix: str, hidden: bool = False) -> str:
    """One ``data-field`` wrapper: label, input, help and the (hidden) error slot."""
    ident = f"{prefix}-{field.name}"
    described = f"{ident}-help {ident}-error" if field.help else f"{ident}-error"
    common = _attr("id", ident) + _attr("name", field.name) + _attr("aria-describedby", described)
    if field.kind in ("int", "float"):
        unset = _unset(field, value)
        control = (f'<input type="number"{_attr("id", ident)}{_attr("name", field.name)}'
                   f'{_attr("value", "" if unset else _number(value))}'
                   f'{_attr("min", _number(field.minimum))}{_attr("max", _number(field.maximum))}'
                   f'{_attr("step", _number(field.step) if field.step else "any")}'
                   f'{_attr("inputmode", "numeric" if field.kind == "int" else "decimal")}'
                   f'{"" if field.none_label else " required"}{" hidden" if unset else ""}'
                   f'{_attr("aria-describedby", described)}>')
        if field.none_label:
            control = _none_choice(field, unset) + control
    elif field.kind == "choice":
        options = "".join(
            f"<option{_attr('value', choice)}{' selected' if choice == _text(value) else ''}>{escape(text)}</option>"
            for choice, text in zip(field.choices, choice_texts(field)))
        control = f"<select{common}>{options}</select>"
    elif field.kind == "bool":
        control = f'<input type="checkbox"{common} value="true"{" checked" if value is True else ""}>'
    elif field.kind == "config":
        control = (f'<textarea{common} rows="6" spellcheck="false" autocomplete="off"'
                   f' placeholder="{{&quot;model_type&quot;: &quot;llama&quot;, &quot;hidden_size&quot;: 4096, ...}}">'
                   f"{escape(_text(value))}</textarea>"
                   f'<input type="file" accept=".json,application/json" data-role="file"{_attr("data-target", field.name)}'
                   f'{_attr("data-max-bytes", MAX_CONFIG_BYTES)}{_attr("aria-label", "Choose a config.json file")}>')
    else:
        unset = _unset(field, value)
        control = (f'<input type="text"{common}{_attr("value", "" if unset else _text(value))} spellcheck="false"'
                   f'{" hidden" if unset else ""}>')
        if field.none_label:
            control = _none_choice(field, unset) + control
    unit = f' <span class="mlhw-unit">({escape(field.unit)})</span>' if field.unit else ""
    label = f'<label{_attr("for", ident)}>{escape(field.label)}{unit}</label>'
    if field.kind == "bool":
        label = f'<label{_attr("for", ident)}>{control} {escape(field.label)}</label>'
        control = ""
    help_text = f'<small class="mlhw-help"{_attr("id", f"{ident}-help")}>{escape(field.help)}</small>' if field.help else ""
    error = f'<p class="mlhw-error" data-role="error"{_attr("id", f"{ident}-error")} role="alert" hidden></p>'
    show = ""
    if field.show_when is not None:
        show = _attr("data-show-when", f"{field.show_when[0]}={field.show_when[1]}")
    return (f'<div class="mlhw-field mlhw-{field.kind}"{_attr("data-field", field.name)}{show}'
            f'{" hidden" if hidden else ""}>'
            f"{label}{control}{help_text}{error}</div>")


def form_markup(calculator: Calculator, raw: Mapping[str, Value], *, prefix: str) -> str:
    """The ``<form>`` of ``calculator`` showing ``raw`` values (defaults where absent)."""
    values = {field.name: raw.get(field.name, field.default) for field in calculator.fields}
    main: list[str] = []
    advanced: list[str] = []
    for field in calculator.fields:
        hidden = field.show_when is not None and _text(values[field.show_when[0]]) not in field.show_when[1].split("|")
        html = field_html(field, values[field.name], prefix=prefix, hidden=hidden)
        (advanced if field.advanced else main).append(html)
    more = ('<details class="mlhw-advanced"><summary>More settings</summary><div class="mlhw-fields">'
            + "".join(advanced) + "</div></details>") if advanced else ""
    return (f'<form class="mlhw-form" data-role="form" novalidate autocomplete="off"'
            f'{_attr("aria-label", calculator.title)}><div class="mlhw-fields">{"".join(main)}</div>{more}</form>')


def share_markup() -> str:
    """The copy buttons, their help and the box that shows what was copied (hidden until the script runs)."""
    buttons = "".join(f'<button type="button" class="md-button"{_attr("data-share", kind)}>{escape(text)}</button>'
                      for kind, text in SHARE_BUTTONS)
    return (f'<div class="mlhw-share" data-role="share" hidden>{buttons}'
            f'<small class="mlhw-help">{escape(SHARE_HELP)}</small>'
            '<p class="mlhw-share-note" data-role="share-note" aria-live="polite" hidden></p>'
            '<textarea class="mlhw-share-text" data-role="share-text" readonly rows="8" hidden'
            ' aria-label="The copied result"></textarea></div>')


def widget_markup(calculator: Calculator, raw: Mapping[str, Value], output_html: str, *, prefix: str) -> str:
    """The whole widget: title, form, status line, notes, the static output and the copy buttons.

    The root carries the package version and the catalog edition (``data-version``,
    ``data-catalog-as-of``) that a copied result states.
    """
    # data-search-exclude keeps the form's option lists and the default result out of the
    # theme's search index (its search plugin honours the attribute, then strips it). The root
    # is a <section> because that plugin ends an exclusion at the first closing tag of the same
    # name, and a widget holds nested <div>s but never a <section>.
    return (f'<section class="mlhw-widget"{_attr("id", prefix)}{_attr("data-calculator", calculator.name)}'
            f' data-state="static"{_attr("data-version", __version__)}{_attr("data-catalog-as-of", catalog_as_of())}'
            ' data-search-exclude="widget">'
            f'<p class="mlhw-title">{escape(calculator.title)}</p>'
            f"{form_markup(calculator, raw, prefix=prefix)}"
            f'<p class="mlhw-status" data-role="status" aria-live="polite">{escape(STATIC_STATUS)}</p>'
            f'<p class="mlhw-note" data-role="file-note" hidden>{escape(FILE_NOTE)}</p>'
            f'<noscript><p class="mlhw-note">{escape(NOSCRIPT_NOTE)}</p></noscript>'
            f'<div class="mlhw-output" data-role="output">{output_html}</div>'
            f"{share_markup()}</section>")
