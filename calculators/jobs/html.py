"""The web face's drawing of a :class:`~calculators.jobs.report.Report`: HTML tables and SVG charts.

The same on the static page and live. Everything here is deterministic (fixed colours, rows in
a fixed order) and escapes every piece of text it is given, so a model name taken from a user's
``config.json`` cannot inject markup. Numbers arrive formatted: a report's tables are typed
columns (:mod:`calculators.columns`) and its sentences use :mod:`calculators.units`; the charts
format their labels with :mod:`calculators.units` too. Memory is shown in GiB (2^30 bytes).

>>> gib(3 * 2**30 // 2)
'1.50'
>>> svg = stacked_bar_svg([("weights", 2**30), ("kv_cache", 2**29)], capacity_bytes=2**31,
...                       capacity_label="Small GPU <2 GiB>")
>>> svg.startswith("<svg") and "Small GPU &lt;2 GiB&gt;: 2.00 GiB" in svg
True
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from html import escape

from calculators.columns import Column, gib_column
from calculators.jobs.report import Chart, Paragraph, Report, Shown
from calculators.tables import Table
from calculators.units import GIB, gib, number

#: Segment colours (Okabe-Ito, readable by people with colour-vision deficiencies),
#: assigned in breakdown order.
PALETTE = ("#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442", "#999999")

#: Display names of result components; anything else is shown with underscores as spaces.
COMPONENT_LABELS = {
    "weights": "Weights",
    "gradients": "Gradients",
    "optimizer_states": "Optimizer states",
    "optimizer_step_temporaries": "Optimizer step temporaries",
    "autocast_weight_copies": "Autocast 16-bit weight copies",
    "activations": "Saved activations",
    "ddp_gradient_buckets": "DDP gradient buckets",
    "transient_at_peak": "Transient tensors at the peak",
    "kv_cache": "KV cache",
    "activations_and_logits": "Activations and logits",
    "cuda_context": "CUDA context (measured)",
    "cuda_workspaces": "cuBLAS workspaces (measured)",
    "allocator_reserve": "Allocator reserve (measured fit)",
}

_PAD_PCT = 1.0  # left and right margin of the bar, in percent of the chart's width
_BAR_Y = 24
_BAR_H = 28
_HEIGHT = _BAR_Y + _BAR_H + 36


def label(component: str) -> str:
    """The display name of a breakdown component."""
    return COMPONENT_LABELS.get(component, component.replace("_", " ").capitalize())


def color(index: int) -> str:
    """The colour of the ``index``-th segment."""
    return PALETTE[index % len(PALETTE)]


def _ticks(top_bytes: float) -> list[float]:
    """Round GiB values for the axis (1, 2 or 5 x 10^k apart), at most seven of them."""
    top = top_bytes / GIB
    if top <= 0:
        return [0.0]
    step = 10.0 ** math.floor(math.log10(top / 6))
    for factor in (1, 2, 5, 10):
        if top / (step * factor) <= 6:
            step *= factor
            break
    return [round(i * step, 9) for i in range(int(top / step) + 1)]


def _pct(value: float) -> str:
    """An x coordinate in percent of the chart's width (deterministic text)."""
    return f"{value:.2f}%"


def stacked_bar_svg(segments: Sequence[tuple[str, int]], *, capacity_bytes: int | None = None,
                    capacity_label: str = "", title: str = "Memory by component") -> str:
    """A horizontal stacked bar of ``segments`` (name, bytes) with a GPU-capacity line.

    The scale runs from 0 to 5 % past the larger of the total and the capacity, so a job
    that does not fit shows the line inside the bar. Horizontal positions are percentages
    and text has a fixed size, so the chart stretches to any width and stays legible;
    :func:`legend_html` names the colours.
    """
    shown = [(name, value) for name, value in segments if value > 0]
    total = sum(value for _, value in shown)
    top = max(total, capacity_bytes or 0, 1) * 1.05

    def x(value: float) -> float:
        return _PAD_PCT + (100 - 2 * _PAD_PCT) * value / top

    summary = f"{title}: {gib(total)} GiB in total"
    if capacity_bytes:
        summary += f" against {capacity_label}: {gib(capacity_bytes)} GiB"
    parts = [
        f'<svg class="mlhw-chart" xmlns="http://www.w3.org/2000/svg" width="100%" height="{_HEIGHT}" '
        f'role="img" aria-label="{escape(summary)}" font-size="12" fill="currentColor">',
        f"<title>{escape(summary)}</title>",
    ]
    start = 0.0
    for index, (name, value) in enumerate(shown):
        left, right = x(start), x(start + value)
        parts.append(f'<rect x="{_pct(left)}" y="{_BAR_Y}" width="{_pct(max(right - left, 0.1))}" '
                     f'height="{_BAR_H}" fill="{color(index)}"><title>{escape(label(name))}: '
                     f"{gib(value)} GiB</title></rect>")
        start += value
    axis_y = _BAR_Y + _BAR_H
    parts.append(f'<line x1="{_pct(x(0))}" y1="{axis_y}" x2="{_pct(x(top))}" y2="{axis_y}" '
                 'stroke="currentColor" stroke-opacity="0.4"/>')
    ticks = _ticks(top)
    for tick in ticks:
        tx = x(tick * GIB)
        parts.append(f'<line x1="{_pct(tx)}" y1="{axis_y}" x2="{_pct(tx)}" y2="{axis_y + 4}" '
                     'stroke="currentColor" stroke-opacity="0.4"/>')
        anchor = "start" if tick == 0 else "end" if tx > 95 else "middle"
        unit = " GiB" if tick == ticks[-1] else ""
        parts.append(f'<text x="{_pct(tx)}" y="{axis_y + 17}" text-anchor="{anchor}" fill-opacity="0.7">'
                     f"{tick:g}{unit}</text>")
    if capacity_bytes:
        cx = x(capacity_bytes)
        anchor = "end" if cx > 50 else "start"
        parts.append(f'<line class="mlhw-capacity" x1="{_pct(cx)}" y1="{_BAR_Y - 16}" x2="{_pct(cx)}" '
                     f'y2="{axis_y + 6}" stroke="currentColor" stroke-width="2" stroke-dasharray="4 3"/>')
        # Only the number by the line (the legend below names it): a GPU's full name there ran
        # past the chart's left edge on a phone.
        parts.append(f'<text x="{_pct(cx)}" dx="{-5 if anchor == "end" else 5}" y="{_BAR_Y - 6}" '
                     f'text-anchor="{anchor}"><title>{escape(capacity_label)}: {gib(capacity_bytes)} GiB</title>'
                     f"{gib(capacity_bytes)} GiB</text>")
    parts.append("</svg>")
    return "".join(parts)


def legend_html(segments: Sequence[tuple[str, int]], *, capacity_bytes: int | None = None,
                capacity_label: str = "") -> str:
    """The chart's key: a colour swatch, name and GiB per segment, then the capacity line."""
    shown = [(name, value) for name, value in segments if value > 0]
    items = [f'<li><span class="mlhw-swatch" style="background:{color(index)}"></span>'
             f"{escape(label(name))}: {gib(value)} GiB</li>" for index, (name, value) in enumerate(shown)]
    if capacity_bytes:
        items.append(f'<li><span class="mlhw-swatch mlhw-swatch-line"></span>{escape(capacity_label)} memory: '
                     f"{gib(capacity_bytes)} GiB</li>")
    return '<ul class="mlhw-legend">' + "".join(items) + "</ul>"


def chart_html(segments: Sequence[tuple[str, int]], *, capacity_bytes: int | None = None,
               capacity_label: str = "", title: str = "Memory by component") -> str:
    """The stacked bar and its legend."""
    return (stacked_bar_svg(segments, capacity_bytes=capacity_bytes, capacity_label=capacity_label, title=title)
            + legend_html(segments, capacity_bytes=capacity_bytes, capacity_label=capacity_label))


def table_html(header: Sequence[str], rows: Iterable[Sequence[str]], *, caption: str = "",
               numeric: Sequence[bool] = (), row_classes: Sequence[str] = (), notes: Sequence[str] = ()) -> str:
    """An HTML table; ``numeric[i]`` right-aligns column ``i``; ``notes[i]``, when given, explains column ``i`` in
    its header's tooltip. Cells are escaped here.

    >>> table_html(["a", "b"], [["x<y", "1"]], numeric=[False, True])
    '<table class="mlhw-table"><thead><tr><th scope="col">a</th><th scope="col" class="num">b</th></tr></thead><tbody><tr><td>x&lt;y</td><td class="num">1</td></tr></tbody></table>'
    >>> table_html(["a"], [], notes=["what a means"])[:80]
    '<table class="mlhw-table"><thead><tr><th scope="col" title="what a means">a</th>'
    """
    def cls(index: int) -> str:
        return ' class="num"' if index < len(numeric) and numeric[index] else ""

    def note(index: int) -> str:
        return f' title="{escape(notes[index])}"' if index < len(notes) and notes[index] else ""

    out = ['<table class="mlhw-table">']
    if caption:
        out.append(f"<caption>{escape(caption)}</caption>")
    out.append("<thead><tr>" + "".join(f'<th scope="col"{cls(i)}{note(i)}>{escape(h)}</th>' for i, h in enumerate(header))
               + "</tr></thead><tbody>")
    for number, row in enumerate(rows):
        extra = row_classes[number] if number < len(row_classes) else ""
        attr = f' class="{escape(extra)}"' if extra else ""
        out.append(f"<tr{attr}>" + "".join(f"<td{cls(i)}>{escape(c)}</td>" for i, c in enumerate(row)) + "</tr>")
    out.append("</tbody></table>")
    return "".join(out)


def notes_html(assumptions: Iterable[str], notes: Iterable[str]) -> str:
    """A collapsed list of a result's assumptions and notes (empty string when none)."""
    items = [f"<li>{escape(text)}</li>" for text in notes] + [f"<li>{escape(text)}</li>" for text in assumptions]
    if not items:
        return ""
    return ('<details class="mlhw-assumptions"><summary>Assumptions and notes</summary><ul>'
            + "".join(items) + "</ul></details>")


def paragraph(text: str, *, css: str = "mlhw-summary") -> str:
    """One escaped paragraph."""
    return f'<p class="{escape(css)}">{escape(text)}</p>'


@dataclass(frozen=True)
class Bar:
    """One bar of :func:`labelled_bars_svg`: its name, value (for the length), text and colour index."""

    label: str
    value: float
    text: str
    colour: int
    highlight: bool = False
    marked: str = ""  # a point that does not fit (or is tight): said after its value, drawn faint and dashed


#: Row of a bar chart: the name on its own line, the bar under it with the value after it.
_ROW = 36
#: Longest bar in percent of the chart's width: the value text after it keeps half the width
#: (about 190 px on a 390 px phone, enough for "1,234.56 USD per million tokens" at 12 px).
_BAR_MAX_PCT = 50.0


def labelled_bars_svg(bars: Sequence[Bar], *, title: str, summary: str = "") -> str:
    """Horizontal bars on one scale, each name on the line above its bar; deterministic, escaped text.

    Names never share a line with a bar, so a long name cannot run into the bars and nothing is
    placed by guessing a text's width: the chart reads the same at 390 px and at 40rem.

    >>> svg = labelled_bars_svg([Bar("a <b>", 1.0, "1 s", 0), Bar("c", 2.0, "2 s", 1, True)], title="T")
    >>> svg.count("<rect"), "a &lt;b&gt;" in svg, 'font-weight="700"' in svg
    (2, True, True)
    """
    top = max([bar.value for bar in bars] + [1e-30])
    height = _ROW * len(bars) + 4
    label = summary or title
    parts = [f'<svg class="mlhw-chart" xmlns="http://www.w3.org/2000/svg" width="100%" height="{height}" '
             f'role="img" aria-label="{escape(label)}" font-size="12" fill="currentColor">',
             f"<title>{escape(label)}</title>"]
    for index, bar in enumerate(bars):
        y = 2 + _ROW * index
        width = max(_BAR_MAX_PCT * max(bar.value, 0.0) / top, 0.2)
        weight = ' font-weight="700"' if bar.highlight else ""
        # A mark goes on the name's own line, which has the chart's whole width (the value's text has half).
        name = f"{bar.label} ({bar.marked})" if bar.marked else bar.label
        faint = (' fill-opacity="0.3" stroke="currentColor" stroke-dasharray="3 2" class="mlhw-marked"'
                 if bar.marked else "")
        parts.append(f'<text x="0" y="{y + 12}"{weight}>{escape(name)}</text>')
        parts.append(f'<rect x="0" y="{y + 16}" width="{width:.2f}%" height="14" fill="{color(bar.colour)}"{faint}>'
                     f"<title>{escape(name)}: {escape(bar.text)}</title></rect>")
        parts.append(f'<text x="{width + 1:.2f}%" y="{y + 28}"{weight}>{escape(bar.text)}</text>')
    parts.append("</svg>")
    return "".join(parts)


def bars_svg(bars: Sequence[tuple[str, float]], *, unit: str, title: str, digits: int = 2) -> str:
    """Horizontal bars ``(label, value)`` on one scale, in one colour (:func:`labelled_bars_svg`).

    >>> "<svg" in bars_svg([("a", 1.0), ("b", 2.0)], unit="USD/h", title="Cost")
    True
    """
    summary = f"{title}: " + "; ".join(f"{name} {number(value, digits)} {unit}" for name, value in bars)
    # One colour: the bars differ in length only (a colour per bar would suggest a meaning it has not).
    return labelled_bars_svg([Bar(name, value, f"{number(value, digits)} {unit}", 0) for name, value in bars],
                             title=title, summary=summary)


# --------------------------------------------------------------------------- reports
def memory_chart(segments: Sequence[tuple[str, int]], *, capacity_bytes: int, capacity_label: str,
                 title: str, data: bool = True) -> Chart:
    """A stacked bar of memory ``segments`` (name, bytes) against a GPU's usable memory, with its data
    (``data=False``: the report's breakdown table holds those numbers already).

    >>> chart = memory_chart([("weights", 2**30)], capacity_bytes=2**31, capacity_label="GPU", title="T")
    >>> chart.data.rows
    (('Weights', '1.00'), ('GPU', '2.00'))
    """
    shown = [(name, value) for name, value in segments if value > 0]
    table = Table.of((Column("Component"), gib_column("GiB")),
                     [(label(name), value) for name, value in shown] + [(capacity_label, capacity_bytes)],
                     caption=f"Chart data: {title} (GiB = 2^30 bytes)")
    return Chart(svg=stacked_bar_svg(shown, capacity_bytes=capacity_bytes, capacity_label=capacity_label, title=title),
                 legend=legend_html(shown, capacity_bytes=capacity_bytes, capacity_label=capacity_label),
                 data=table if data else None)


def table_of(shown: Shown) -> str:
    """A report's table as HTML: its caption above, right-aligned numeric columns, a class per row."""
    table = shown.table
    return table_html(table.columns, table.rows, caption=table.caption, numeric=[side == "r" for side in table.align],
                      row_classes=shown.classes, notes=table.notes)


def chart_of(chart: Chart) -> str:
    """A chart: its drawing and legend, then its numbers as a table folded under it."""
    if chart.data is None:
        return chart.svg + chart.legend
    return (chart.svg + chart.legend + '<details class="mlhw-chart-data"><summary>Chart data</summary>'
            + table_of(Shown(chart.data)) + "</details>")


def warnings_html(warnings: Iterable[str]) -> str:
    """The banner above a result: each thing the reader must see before its numbers (empty when none)."""
    return "".join(f'<p class="mlhw-warning" role="note"><strong>Warning:</strong> {escape(text)}</p>'
                   for text in warnings)


def report_html(report: Report) -> str:
    """A report as the widget's result: warnings, the headline (marked with its verdict), its blocks, then
    the folded assumptions and notes.

    >>> html = report_html(Report("On 1x GPU: fits.", verdict="fits", warnings=("read as Llama",)))
    >>> html.index("mlhw-warning") < html.index("mlhw-headline"), 'class="mlhw-headline mlhw-fits"' in html
    (True, True)
    """
    verdict = {"fits": "mlhw-fits", "tight": "mlhw-tight", "does not fit": "mlhw-short"}.get(report.verdict, "")
    parts = [warnings_html(report.warnings)]
    if report.echo:
        parts.append(paragraph(report.echo, css="mlhw-echo"))
    if report.headline:
        parts.append(paragraph(report.headline, css=f"mlhw-headline {verdict}".strip()))
    for block in report.blocks:
        if isinstance(block, Paragraph):
            parts.append(paragraph(block.text, css=block.css))
        elif isinstance(block, Chart):
            parts.append(chart_of(block))
        else:
            parts.append(table_of(block))
    parts.append(notes_html(report.assumptions, report.notes))
    return "".join(parts)
