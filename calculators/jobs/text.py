"""The command line's drawing of a :class:`~calculators.jobs.report.Report`: plain text.

The same report the web page shows as HTML (:func:`calculators.jobs.html.report_html`): the
warnings first, the headline, each paragraph, each table (a chart as its data), then the notes
and assumptions. Numbers arrive formatted (typed columns, :mod:`calculators.units`); this module
only aligns them.

>>> from calculators.columns import Column, gib_column
>>> from calculators.tables import Table
>>> table = Table.of((Column("part"), gib_column("GiB")), [("weights", 16 * 2**30), ("KV cache", 2**30)],
...                  caption="Memory")
>>> print(table_text(table))
Memory
part       GiB
weights  16.00
KV cache  1.00
"""

from __future__ import annotations

from calculators.jobs.report import Chart, Paragraph, Report
from calculators.tables import Table


def table_text(table: Table) -> str:
    """A table as aligned text: its caption, the header, one line a row (each column aligned as declared)."""
    rows = [table.columns, *table.rows]
    widths = [max(len(row[index]) for row in rows) for index in range(len(table.columns))]
    align = table.align or ("l",) * len(table.columns)

    def line(row: tuple[str, ...]) -> str:
        cells = [cell.rjust(width) if side == "r" else cell.ljust(width)
                 for cell, width, side in zip(row, widths, align, strict=True)]
        return "  ".join(cells).rstrip()

    return "\n".join([*([table.caption] if table.caption else []), *(line(row) for row in rows)])


def report_text(report: Report) -> str:
    """A report as the command line prints it (see the module docstring).

    >>> print(report_text(Report("On 1x GPU: fits.", warnings=("read as Llama",), assumptions=("batch 1",))))
    WARNING: read as Llama
    On 1x GPU: fits.
    assumes: batch 1
    """
    lines = [f"WARNING: {warning}" for warning in report.warnings] + ([report.echo] if report.echo else [])
    if report.headline:
        lines.append(report.headline)
    for block in report.blocks:
        if isinstance(block, Paragraph):
            lines.append(block.text)
        elif isinstance(block, Chart):
            lines += [] if block.data is None else ["", table_text(block.data)]
        else:
            lines += ["", table_text(block.table)]
    if report.notes or report.assumptions:
        lines.append("")
    lines += [f"note: {note}" for note in report.notes] + [f"assumes: {item}" for item in report.assumptions]
    return "\n".join(lines)
