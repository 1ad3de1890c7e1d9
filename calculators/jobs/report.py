"""What a calculator shows for one answer, before any face draws it: a :class:`Report`.

A report is the answer's words and numbers, already formatted through :mod:`calculators.units`
and typed columns (:mod:`calculators.columns`, :class:`calculators.tables.Table`): the warnings
the reader must see first, the headline (the reader's GPU and count, the verdict and the
margin, where the job has a memory verdict), paragraphs, charts with their data as a table,
tables, notes and assumptions. The command line prints it as text
(:func:`calculators.jobs.text.report_text`) and the web page shows it as HTML
(:func:`calculators.jobs.html.report_html`): one rendering path, two faces.

>>> from calculators.columns import Column, gib_column
>>> from calculators.tables import Table
>>> report = Report("Fits.", verdict="fits", blocks=(
...     Shown(Table.of((Column("part"), gib_column("GiB")), [("weights", 2**30)], caption="Memory")),))
>>> report.tables[0].rows
(('weights', '1.00'),)
"""

from __future__ import annotations

from dataclasses import dataclass

from calculators.tables import Table


@dataclass(frozen=True)
class Paragraph:
    """A sentence or two of the answer (``css``: how the web face styles it)."""

    text: str
    css: str = "mlhw-summary"


@dataclass(frozen=True)
class Shown:
    """A table of the answer, with a class per row for the web face (verdict colours, the chosen GPU)."""

    table: Table
    classes: tuple[str, ...] = ()


@dataclass(frozen=True)
class Chart:
    """A chart: its drawing for the web face (SVG and legend, :mod:`calculators.jobs.html`) and the same
    numbers as a table, which the command line prints and the page folds under the drawing."""

    svg: str
    data: Table | None  # None: its numbers are already a table of the report (a memory breakdown)
    legend: str = ""


Block = Paragraph | Shown | Chart


@dataclass(frozen=True)
class Report:
    """One answer of a calculator, face-neutral (see the module docstring).

    Attributes:
        headline: the first sentence: on the reader's GPU(s), the verdict and the margin (or the
            answer's gist where the job has no memory verdict).
        verdict: ``"fits"``, ``"tight"``, ``"does not fit"`` or ``""`` (no verdict): how the headline is marked.
        blocks: paragraphs, charts and tables, in order.
        notes: what the reader should know about these inputs (a format a GPU only emulates).
        assumptions: what the numbers assume.
        warnings: what the reader must see before any number (a model read as Llama-style, a part not counted).
        echo: a custom model's shapes as read from its config.json, shown first so the reader can check them
            (:func:`calculators.jobs.echo.config_echo`).
    """

    headline: str
    verdict: str = ""
    blocks: tuple[Block, ...] = ()
    notes: tuple[str, ...] = ()
    assumptions: tuple[str, ...] = ()
    warnings: tuple[str, ...] = ()
    echo: str = ""  # what was read from the reader's own config.json, said before the headline

    @property
    def tables(self) -> tuple[Table, ...]:
        """The report's tables, charts' data included, in order."""
        found = (block.table if isinstance(block, Shown) else block.data for block in self.blocks
                 if isinstance(block, (Shown, Chart)))
        return tuple(table for table in found if table is not None)
