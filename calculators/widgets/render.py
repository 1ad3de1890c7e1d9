"""HTML tables and SVG charts of calculator results, the same on the static page and live.

Everything here is deterministic (fixed rounding, fixed colours, rows in a fixed order)
and escapes every piece of text it is given, so a model name taken from a user's
``config.json`` cannot inject markup. Memory is shown in GiB (2^30 bytes) with two
decimals, and the headers say so.

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
from html import escape

GIB = 2**30

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
    "cuda_context": "CUDA context (assumed)",
    "cublas_workspace": "cuBLAS workspace (assumed)",
    "allocator_slack": "Allocator slack (assumed)",
}

_WIDTH = 640
_PAD = 8
_BAR_Y = 30
_BAR_H = 30
_ROW_H = 18


def gib(value_bytes: float) -> str:
    """Bytes as GiB with two decimals and thousands separators (``'1,234.50'``)."""
    return f"{value_bytes / GIB:,.2f}"


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


def _num(value: float) -> str:
    """An SVG coordinate with one decimal (deterministic text)."""
    return f"{value:.1f}"


def stacked_bar_svg(segments: Sequence[tuple[str, int]], *, capacity_bytes: int | None = None,
                    capacity_label: str = "", title: str = "Memory by component") -> str:
    """A horizontal stacked bar of ``segments`` (name, bytes) with a GPU-capacity line.

    The scale runs from 0 to 5 % past the larger of the total and the capacity, so a job
    that does not fit shows the line inside the bar.
    """
    shown = [(name, value) for name, value in segments if value > 0]
    total = sum(value for _, value in shown)
    top = max(total, capacity_bytes or 0, 1) * 1.05
    span = _WIDTH - 2 * _PAD

    def x(value: float) -> float:
        return _PAD + span * value / top

    legend_y = _BAR_Y + _BAR_H + 34
    height = legend_y + _ROW_H * len(shown) + 4
    summary = f"{title}: {gib(total)} GiB in total"
    if capacity_bytes:
        summary += f" against {capacity_label}: {gib(capacity_bytes)} GiB"
    parts = [
        f'<svg class="mlhw-chart" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {_WIDTH} {height}" '
        f'width="100%" role="img" aria-label="{escape(summary)}" font-size="12" fill="currentColor">',
        f"<title>{escape(summary)}</title>",
    ]
    start = 0.0
    for index, (name, value) in enumerate(shown):
        left, right = x(start), x(start + value)
        parts.append(f'<rect x="{_num(left)}" y="{_BAR_Y}" width="{_num(max(right - left, 0.5))}" '
                     f'height="{_BAR_H}" fill="{color(index)}"><title>{escape(label(name))}: '
                     f"{gib(value)} GiB</title></rect>")
        start += value
    axis_y = _BAR_Y + _BAR_H
    parts.append(f'<line x1="{_PAD}" y1="{axis_y}" x2="{_WIDTH - _PAD}" y2="{axis_y}" stroke="currentColor" '
                 'stroke-opacity="0.4"/>')
    for tick in _ticks(top):
        tx = x(tick * GIB)
        parts.append(f'<line x1="{_num(tx)}" y1="{axis_y}" x2="{_num(tx)}" y2="{axis_y + 4}" '
                     'stroke="currentColor" stroke-opacity="0.4"/>')
        anchor = "start" if tick == 0 else "middle"
        parts.append(f'<text x="{_num(tx)}" y="{axis_y + 16}" text-anchor="{anchor}" fill-opacity="0.7">'
                     f"{tick:g}</text>")
    parts.append(f'<text x="{_WIDTH - _PAD}" y="{axis_y + 30}" text-anchor="end" fill-opacity="0.7">GiB</text>')
    if capacity_bytes:
        cx = x(capacity_bytes)
        anchor = "end" if cx > _WIDTH / 2 else "start"
        offset = -4 if anchor == "end" else 4
        parts.append(f'<line class="mlhw-capacity" x1="{_num(cx)}" y1="{_BAR_Y - 14}" x2="{_num(cx)}" '
                     f'y2="{axis_y + 6}" stroke="currentColor" stroke-width="2" stroke-dasharray="4 3"/>')
        parts.append(f'<text x="{_num(cx + offset)}" y="{_BAR_Y - 6}" text-anchor="{anchor}">'
                     f"{escape(capacity_label)}: {gib(capacity_bytes)} GiB</text>")
    for index, (name, value) in enumerate(shown):
        y = legend_y + _ROW_H * index
        parts.append(f'<rect x="{_PAD}" y="{y - 10}" width="12" height="12" fill="{color(index)}"/>')
        parts.append(f'<text x="{_PAD + 18}" y="{y}">{escape(label(name))}: {gib(value)} GiB</text>')
    parts.append("</svg>")
    return "".join(parts)


def table_html(header: Sequence[str], rows: Iterable[Sequence[str]], *, caption: str = "",
               numeric: Sequence[bool] = (), row_classes: Sequence[str] = ()) -> str:
    """An HTML table; ``numeric[i]`` right-aligns column ``i``. Cells are escaped here.

    >>> table_html(["a", "b"], [["x<y", "1"]], numeric=[False, True])
    '<table class="mlhw-table"><thead><tr><th scope="col">a</th><th scope="col" class="num">b</th></tr></thead><tbody><tr><td>x&lt;y</td><td class="num">1</td></tr></tbody></table>'
    """
    def cls(index: int) -> str:
        return ' class="num"' if index < len(numeric) and numeric[index] else ""

    out = ['<table class="mlhw-table">']
    if caption:
        out.append(f"<caption>{escape(caption)}</caption>")
    out.append("<thead><tr>" + "".join(f'<th scope="col"{cls(i)}>{escape(h)}</th>' for i, h in enumerate(header))
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
