"""A widget's result as a record to paste into a review: Markdown and JSON, with what reproduces it.

The "Copy result" buttons of every widget call :func:`share_record` (through
:func:`calculators.widgets.api.share_json` in the browser's worker). The record holds the
calculator, every input as the form shows it and as the engine takes it (an input left to the
engine, such as a fitted utilisation, as the value the engine used, marked fitted: ``used``), the
outputs (the summary sentences, each table with its caption, a chart's data as a table, the
assumptions and notes), the package version, the catalog edition
(:func:`calculators.catalog.edition.catalog_as_of`) and the page URL whose query string restores
the inputs. The outputs are read back from the same HTML the page shows, so what is pasted is
what was on screen, for every calculator alike.

>>> record = share_record("kv-cache", {"context": "8192"}, page_url="https://host/guide/inference/?kv-cache-0.context=8192")
>>> record["calculator"], record["inputs"]["context"], record["catalog_as_of"] == catalog_as_of()
('kv-cache', '8192', True)
>>> markdown = share_markdown(record)
>>> markdown.splitlines()[0]
'**KV cache** (Sizing ML Hardware calculator)'
>>> "| Context (tokens per sequence) | 8192 |" in markdown
True
"""

from __future__ import annotations

from collections.abc import Mapping
from html.parser import HTMLParser
from typing import Any

from calculators.catalog.edition import catalog_as_of
from calculators.inputs.fields import NONE_SPELLINGS, Field, Value
from calculators.version import __version__
from calculators.jobs.calculator import Calculator
from calculators.widgets.fields import choice_texts
from calculators.jobs.registry import get_calculator

#: The longest config.json text a record carries (characters); a longer one is summarised.
MAX_CONFIG_CHARS = 8192


class _Outputs(HTMLParser):
    """Collects a result's paragraphs, tables and list items (assumptions and notes) as text."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.paragraphs: list[str] = []
        self.tables: list[dict[str, Any]] = []
        self.notes: list[str] = []
        self.chart: list[str] = []
        self._legend = False
        self._text: list[str] | None = None
        self._where = ""
        self._row: list[str] | None = None
        self._head = False
        self._skip = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in ("svg", "summary", "title"):
            self._skip += 1
        elif tag == "ul":
            self._legend = "mlhw-legend" in (dict(attrs).get("class") or "")
        elif tag == "table":
            self.tables.append({"caption": "", "header": [], "rows": []})
        elif tag == "tr":
            self._row = []
        elif tag in ("td", "th", "caption", "p", "li", "dd", "dt"):
            self._text, self._where = [], tag
            self._head = self._head or tag == "th"

    def handle_endtag(self, tag: str) -> None:
        if tag in ("svg", "summary", "title"):
            self._skip = max(self._skip - 1, 0)
        elif tag == self._where and self._text is not None:
            text = " ".join("".join(self._text).split())
            self._text = None
            if tag in ("td", "th") and self._row is not None:
                self._row.append(text)
            elif tag == "caption" and self.tables:
                self.tables[-1]["caption"] = text
            elif tag == "p" and text:
                self.paragraphs.append(text)
            elif tag == "li" and text:
                (self.chart if self._legend else self.notes).append(text)
            elif tag in ("dt", "dd") and text:
                self.paragraphs.append(text)
        elif tag == "tr" and self._row is not None and self.tables:
            if self._head and not self.tables[-1]["header"]:
                self.tables[-1]["header"] = self._row
            else:
                self.tables[-1]["rows"].append(self._row)
            self._row, self._head = None, False

    def handle_data(self, data: str) -> None:
        if self._text is not None and not self._skip:
            self._text.append(data)


def outputs_of(html: str) -> dict[str, Any]:
    """The text of a rendered result: ``summary`` (paragraphs), ``chart`` (its key), ``tables`` and ``notes``.

    >>> outputs_of('<p class="mlhw-summary">Fits &amp; more.</p><svg><text>9</text></svg>'
    ...            '<table><caption>C</caption><thead><tr><th>a</th></tr></thead><tbody><tr><td>1</td></tr></tbody></table>')
    {'summary': ['Fits & more.'], 'chart': [], 'tables': [{'caption': 'C', 'header': ['a'], 'rows': [['1']]}], 'notes': []}
    """
    parser = _Outputs()
    parser.feed(html)
    parser.close()
    return {"summary": parser.paragraphs, "chart": parser.chart, "tables": parser.tables, "notes": parser.notes}


def _shown(field: Field, value: Value) -> str:
    """A value as the form shows it: a choice's label, yes/no, a number as typed."""
    if field.kind == "choice":
        for choice, text in zip(field.choices, choice_texts(field)):
            if choice == str(value):
                return text
    if field.kind == "bool":
        return "yes" if value is True else "no"
    if field.none_label and str(value).strip().lower() in NONE_SPELLINGS:
        return field.none_label
    return str(value) if str(value).strip() else "(blank)"


def _label(field: Field) -> str:
    return f"{field.label} ({field.unit})" if field.unit else field.label


def _visible(calculator: Calculator, raw: Mapping[str, Value], field: Field) -> bool:
    if field.show_when is None:
        return True
    other, wanted = field.show_when  # "custom|mac": any of these values
    return str(raw.get(other, calculator.field(other).default)) in wanted.split("|")


def share_record(name: str, inputs: Mapping[str, object], *, page_url: str) -> dict[str, Any]:
    """The result of calculator ``name`` for form values ``inputs``, as a JSON-ready record.

    Args:
        name: a calculator name.
        inputs: form values as the page sends them (strings); absent ones take defaults.
        page_url: the address that reproduces the result (the page with the inputs in its query).

    Returns:
        ``{"calculator", "title", "inputs", "shown", "outputs", "version", "catalog_as_of", "url"}``:
        ``inputs`` as the engine takes them (every field visible for these inputs), ``shown``
        as the form labels them. Raises :class:`~calculators.errors.InputError` for bad inputs,
        as the widget does.
    """
    calculator = get_calculator(name)
    answer = calculator.answer(inputs)  # checks every input first
    raw = {field.name: field.parse(inputs.get(field.name)) for field in calculator.fields}
    engine: dict[str, Value] = {}
    shown: dict[str, str] = {}
    for field in calculator.fields:
        if not _visible(calculator, raw, field):
            continue
        value = raw[field.name]
        if field.kind == "config" and isinstance(value, str) and len(value) > MAX_CONFIG_CHARS:
            value = f"(a config.json of {len(value):,} characters, not included)"
        engine[field.name] = value
        shown[_label(field)] = _shown(field, value) if field.kind != "config" else "(config.json below)"
        if field.name in answer.used and _left_to_engine(field, inputs.get(field.name)):
            shown[_label(field)] = answer.used[field.name]  # the value the engine used, saying how it got it
    return {"calculator": calculator.name, "title": calculator.title, "inputs": engine, "shown": shown,
            "used": dict(answer.used), "outputs": outputs_of(answer.html), "version": __version__,
            "catalog_as_of": catalog_as_of(), "url": page_url}


def _left_to_engine(field: Field, given: object) -> bool:
    """Whether the form left this input to the engine: its "none" choice taken, or the input not sent."""
    return bool(field.none_label) and (given is None or str(given).strip().lower() in NONE_SPELLINGS)


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _table(header: list[str], rows: list[list[str]]) -> list[str]:
    width = max([len(header)] + [len(row) for row in rows])
    header = header + [""] * (width - len(header))
    lines = ["| " + " | ".join(_cell(h) for h in header) + " |", "|" + "---|" * width]
    lines += ["| " + " | ".join(_cell(c) for c in row + [""] * (width - len(row))) + " |" for row in rows]
    return lines


def share_markdown(record: Mapping[str, Any]) -> str:
    """The record as Markdown: title, inputs, summary, tables, notes, then version, edition and link."""
    lines = [f"**{record['title']}** (Sizing ML Hardware calculator)", ""]
    lines += _table(["Input", "Value"], [[label, value] for label, value in record["shown"].items()])
    config = record["inputs"].get("config")
    if isinstance(config, str) and config.strip():
        lines += ["", "config.json:", "", "```json", config.strip(), "```"]
    outputs = record["outputs"]
    for paragraph in outputs["summary"]:
        lines += ["", paragraph]
    if outputs["chart"]:
        lines += ["", "Chart: " + "; ".join(outputs["chart"]) + "."]
    for table in outputs["tables"]:
        lines += [""] + ([f"*{table['caption']}*", ""] if table["caption"] else [])
        lines += _table(list(table["header"]), [list(row) for row in table["rows"]])
    if outputs["notes"]:
        lines += ["", "Assumptions and notes:", ""] + [f"- {note}" for note in outputs["notes"]]
    lines += ["", f"Computed by calculators {record['version']}, catalog as of {record['catalog_as_of']}: "
                  f"<{record['url']}>"]
    return "\n".join(lines) + "\n"
