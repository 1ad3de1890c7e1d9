"""Typed columns of the generated tables: a header, how a raw value becomes its cell, and an alignment.

A page's table function builds its rows from raw numbers (bytes, counts, fractions) and
declares its columns once; :meth:`calculators.tables.Table.of` formats every row through them,
so each column rounds the same way in every row. A column formats with :mod:`calculators.units`,
the one place a quantity becomes text.

>>> from calculators.tables import Table
>>> table = Table.of((Column("model"), gib_column("weights GiB"), percent_column("share")),
...                  [("a", 16 * 2**30, 0.25)], caption="Demo.")
>>> table.rows, table.align
((('a', '16.00', '25 %'),), ('l', 'r', 'r'))
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from calculators.units import GB, GIB, gb, gib, number, percent


@dataclass(frozen=True)
class Column:
    """A typed column of a generated table: its header, how a raw value becomes its cell, its alignment.

    The rows of :meth:`calculators.tables.Table.of` hold raw numbers; each column formats its values once, the
    same way in every row (fixed rounding per column).
    """

    name: str
    text: Callable[[Any], str] = str
    align: str = "l"
    #: What an unusual column's values mean, said where the column stands (the web face's header tooltip);
    #: the caption may say it too, for the faces without tooltips.
    note: str = ""
    #: The value as the CSV file holds it: a number in the unit the header names, unrounded (``None``: empty);
    #: unset, the CSV reads the cell's text back (:func:`calculators.tables.csv_cell`).
    raw: Callable[[Any], object] | None = None
    #: The unit of :attr:`raw`, as the CSV's metadata file names it ("" for text or a plain count).
    unit: str = ""


def _scaled(unit: float) -> Callable[[Any], object]:
    """The raw value of a column that shows ``value / unit``: ``None`` stays empty, a count in units of one stays a count."""
    return lambda value: value if value is None or unit == 1 else value / unit


def gib_column(name: str, digits: int = 2, *, missing: str = "-", grouped: bool = False) -> Column:
    """A right-aligned column of bytes shown as GiB with ``digits`` decimals, no thousands separator
    unless ``grouped``; ``None`` (a term the row does not have) reads ``missing``.

    >>> [gib_column("GiB", 1).text(value) for value in (1.5 * 2**30, None)], gib_column("GiB", grouped=True).text(2**40)
    (['1.5', '-'], '1,024.00')
    """
    return Column(name, lambda value: missing if value is None else gib(value, digits, grouped=grouped), "r",
                  raw=_scaled(GIB), unit="GiB (2^30 bytes)")


def gb_column(name: str, digits: int = 1, *, grouped: bool = True, missing: str = "-") -> Column:
    """A right-aligned column of bytes (or bytes/s) shown as decimal GB with ``digits`` decimals
    (:func:`~calculators.units.gb`), with thousands separators unless ``grouped`` is False;
    ``None`` (unknown) reads ``missing``.

    >>> gb_column("GB/s").text(1800e9), gb_column("GB/s", 0, grouped=False).text(1800e9), gb_column("GB/s").text(None)
    ('1,800.0', '1800', '-')
    """
    return Column(name, lambda value: missing if value is None else gb(value, digits, grouped=grouped), "r",
                  raw=_scaled(GB), unit="GB (10^9 bytes; per second where the header says GB/s)")


def number_column(name: str, digits: int = 0, *, unit: float = 1, missing: str = "-") -> Column:
    """A right-aligned column of numbers in multiples of ``unit`` (``KIB`` shows bytes as KiB, ``1e9`` a count in
    billions) with thousands separators and ``digits`` decimals (:func:`~calculators.units.number`); ``None``
    (unknown) reads ``missing``.

    >>> number_column("tokens").text(8192), number_column("tokens/s", 1).text(1234.56), number_column("W").text(None)
    ('8,192', '1,234.6', '-')
    >>> number_column("KiB", 1, unit=1024).text(131072), number_column("TFLOPS", 1, unit=1e12).text(989.4e12)
    ('128.0', '989.4')
    """
    return Column(name, lambda value: missing if value is None else number(value / unit, digits), "r",
                  raw=_scaled(unit), unit="" if unit == 1 else f"multiples of {unit:g}, as the header names them")


def tflops_column(name: str, *, missing: str = "—") -> Column:
    """A right-aligned column of FLOP/s shown as TFLOPS (10^12 FLOP/s) with one decimal; ``None`` (no such tensor
    path, or no published figure) reads ``missing``.

    >>> tflops_column("BF16 TFLOPS").text(989.4e12), tflops_column("BF16 TFLOPS").text(None)
    ('989.4', '—')
    """
    return number_column(name, 1, unit=1e12, missing=missing)


def percent_column(name: str, digits: int = 0) -> Column:
    """A right-aligned column of fractions shown as percentages with ``digits`` decimals, no thousands separator
    (signed errors: :func:`~calculators.units.signed_percent` as the column's formatter).

    >>> percent_column("saving").text(0.25), percent_column("median error", 1).text(0.0123)
    ('25 %', '1.2 %')
    """
    return Column(name, lambda value: percent(value, digits), "r", raw=_scaled(0.01), unit="%")


def decimal_column(name: str, digits: int = 1, *, unit: float = 1) -> Column:
    """A right-aligned column of plain numbers in multiples of ``unit`` with ``digits`` decimals, no thousands
    separator.

    >>> decimal_column("ratio", 2).text(1 / 3), decimal_column("parameters (M)", unit=1e6).text(41_943_040)
    ('0.33', '41.9')
    """
    return Column(name, lambda value: number(value / unit, digits, grouped=False), "r", raw=_scaled(unit),
                  unit="" if unit == 1 else f"multiples of {unit:g}, as the header names them")
