"""Numbers in the prose of the docs, generated from the calculators and written between markers.

A sentence that states a computed result holds a marker instead of a typed number::

    Llama 3.1 8B needs <!-- value: inference-l31-8b-8k-total -->17.35 GiB<!-- /value --> for one prompt.

:func:`update_values` replaces what is between the markers with the value the registered
function produces (a :class:`Value`), wrapped in a ``<span>`` whose ``id`` is the value id
(so ``page/#ID`` points at the number) and whose ``title`` names the value, what kind of
number it is and the function that computed it (shown when the reader hovers over the
number); the site build adds the edition, the package version and the catalog's as-of date,
which the committed pages leave out. The Markdown source therefore always shows the real
number, and tests recompute every one. A value marker must not open a line: Python-Markdown
would read a comment at the start of a line as an HTML block and split the paragraph.

Values are registered like tables: a module of :mod:`calculators.doc_values` defines
``VALUES: dict[str, ValueFunction]`` mapping each id to a named zero-argument function.
Value ids are unique across the site, each used by exactly one marker, and distinct
from table ids (:mod:`calculators.table_registry` checks both).

>>> def demo() -> Value:
...     return quantity("demo-gib", 17.3456 * 2**30, digits=2, unit="GiB", description="A demo total.",
...                     kind="derived")
>>> text = "It needs <!-- value: demo-gib -->? GiB<!-- /value --> here."
>>> print(update_values(text, {"demo-gib": demo}))  # doctest: +NORMALIZE_WHITESPACE
It needs <!-- value: demo-gib --><span class="generated-value" id="demo-gib"
title="demo-gib: derived by calculators.inline_values.demo">17.35 GiB</span><!-- /value --> here.
>>> shown_values(update_values(text, {"demo-gib": demo}, version="0.1.0"))
{'demo-gib': '17.35 GiB'}
"""

from __future__ import annotations

import functools
import html
import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass

from calculators.errors import UnknownNameError
from calculators.tables import checked_id, citation, declared_under, edition
from calculators.units import GB, GIB, MIB
from calculators.units import number as number_text

#: What kind of number a value is (house style: say whether each number is measured, derived or
#: assumed; ``spec`` is a catalog figure quoted from its source, as the catalogs' ``kind`` says).
KINDS = ("derived", "measured", "assumed", "spec")


@dataclass(frozen=True)
class Value:
    """One generated number of the prose: id, the text shown, what it is, and its provenance.

    Attributes:
        id: Stable id, lowercase letters, digits and hyphens (the anchor on the page).
        text: The number as the page shows it, unit included (``"17.35 GiB"``).
        description: One sentence saying what the number is (the model, the setting).
        kind: One of :data:`KINDS`.
        number: The unrounded number in the unit shown, for data consumers.
        unit: The unit shown (``"GiB"``, ``"%"``, ``""`` for a count).
        assumptions: What the number assumes, as table captions list them.
    """

    id: str
    text: str
    description: str
    kind: str
    number: float
    unit: str = ""
    assumptions: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        checked_id("value", self.id)
        if self.kind not in KINDS:
            raise ValueError(f"value {self.id}: kind {self.kind!r} is not one of {', '.join(KINDS)}")
        if not self.text or "<" in self.text or "\n" in self.text:
            raise ValueError(f"value {self.id}: text {self.text!r} must be one line of plain text")


#: Value id -> the named function producing it.
ValueFunction = Callable[[], Value]

_MARKER = re.compile(r"(<!-- value: (?P<id>[a-z0-9-]+) -->)(?P<body>[^\n]*?)(<!-- /value -->)")
_LINE_START = re.compile(r"^ {0,3}<!-- value: (?P<id>[a-z0-9-]+) -->", re.MULTILINE)
_TAG = re.compile(r"<[^>]*>")


# --------------------------------------------------------------------------- building values
#: A shown unit -> its size in base units, the divisor of an amount: memory and bandwidth are given in bytes
#: (bytes/s), a share as a fraction; an amount in any other unit (ms, USD, a count) is given in that unit.
UNIT_SIZES: dict[str, float] = {"GiB": GIB, "MiB": MIB, "GB": GB, "GB/s": GB, "%": 0.01}


def quantity(value_id: str, amount: float, *, digits: int, unit: str, description: str, kind: str,
             assumptions: tuple[str, ...] = (), scale: float | None = None) -> Value:
    """A :class:`Value` for ``amount / scale`` shown with ``digits`` decimals, thousands separators and ``unit``.

    Args:
        value_id: The value's id.
        amount: The number in base units (bytes, bytes/s, a fraction) or, for a unit not in :data:`UNIT_SIZES`, in
            the unit shown.
        digits: Decimals shown (fixed per value, so regeneration is deterministic).
        unit: Unit written after the number, separated by a space (none when empty).
        description: What the number is.
        kind: One of :data:`KINDS`.
        assumptions: What the number assumes.
        scale: Divisor from ``amount`` to the number shown; by default the unit's size (:data:`UNIT_SIZES`), else 1.

    >>> quantity("x", 0.0619, digits=1, unit="%", description="d", kind="measured").text
    '6.2 %'
    >>> quantity("y", 1234567, digits=0, unit="tokens", description="d", kind="derived").text
    '1,234,567 tokens'
    >>> quantity("z", 3 * 2**29, digits=2, unit="GiB", description="d", kind="derived").number
    1.5
    """
    number = amount / (UNIT_SIZES.get(unit, 1.0) if scale is None else scale)
    shown = number_text(number, digits)
    return Value(id=value_id, text=f"{shown} {unit}" if unit else shown, description=description, kind=kind,
                 number=number, unit=unit, assumptions=assumptions)


# --------------------------------------------------------------------------- declaring values
@dataclass(frozen=True)
class Bound:
    """A value function with its settings, the value id left out: :func:`declared_values` puts it in."""

    function: Callable[..., Value]
    settings: Mapping[str, object]


def bound(function: Callable[..., Value], **settings: object) -> Bound:
    """``function`` with keyword settings, for a :func:`declared_values` entry that writes its id once.

    >>> def demo(value_id: str, *, memory_bytes: float) -> Value:
    ...     return quantity(value_id, memory_bytes, digits=1, unit="GiB", description="d", kind="derived")
    >>> declared_values({}, {"demo-x": bound(demo, memory_bytes=2 * 2**30)})["demo-x"]().text
    '2.0 GiB'
    """
    return Bound(function, settings)


def value(value_id: str) -> Callable[[Callable[[str], Value]], ValueFunction]:
    """Declare a value function under its id, written here once: the function receives the id.

    The declared function keeps its name (``functools.wraps``), so its provenance is the function's own.

    >>> @value("demo-y")
    ... def demo_y(value_id: str) -> Value:
    ...     return quantity(value_id, 3.0, digits=0, unit="GPUs", description="d", kind="assumed")
    >>> demo_y().id, demo_y.value_id, function_name(demo_y).rsplit(".", 1)[-1]
    ('demo-y', 'demo-y', 'demo_y')
    """
    checked_id("value", value_id)

    def declare(function: Callable[[str], Value]) -> ValueFunction:
        @functools.wraps(function)
        def declared() -> Value:
            return function(value_id)

        declared.value_id = value_id  # type: ignore[attr-defined]
        return declared

    return declare


def declared_values(namespace: Mapping[str, object],
                    entries: Mapping[str, ValueFunction | Bound] | None = None) -> dict[str, ValueFunction]:
    """A module's ``VALUES``, id -> function: those ``namespace`` declares with :func:`value`, then ``entries``.

    Each id is written once, as the key or in :func:`value`; a :func:`bound` entry becomes
    ``functools.partial(function, id, ...)``, so the function receives its id as its first argument (and names it
    in its provenance, :func:`function_name`).
    """
    declared: dict[str, ValueFunction] = declared_under(namespace, "value_id")  # type: ignore[assignment]
    for value_id, entry in (entries or {}).items():
        declared[value_id] = functools.partial(entry.function, value_id, **entry.settings) \
            if isinstance(entry, Bound) else entry
    return declared


# --------------------------------------------------------------------------- provenance
def function_name(function: Callable[..., object]) -> str:
    """The dotted name of a value function (``module.qualname``), refusing anonymous ones.

    A :func:`functools.partial` of a named function (one function serving several values)
    is named with its bound arguments.

    >>> function_name(quantity)
    'calculators.inline_values.quantity'
    >>> function_name(functools.partial(quantity, "x", digits=1))
    "calculators.inline_values.quantity('x', digits=1)"
    """
    while hasattr(function, "__wrapped__"):  # functools.cache and friends
        function = function.__wrapped__
    if isinstance(function, functools.partial):
        bound = [repr(arg) for arg in function.args] + [f"{key}={arg!r}" for key, arg in function.keywords.items()]
        return f"{function_name(function.func)}({', '.join(bound)})"
    qualname = getattr(function, "__qualname__", "")
    if not qualname or "<" in qualname:
        raise ValueError(f"value functions must be named module-level functions, not {function!r}")
    return f"{function.__module__}.{qualname}"


def title(value: Value, *, function: str, version: str = "", catalog_as_of: str = "") -> str:
    """The hover text of a value: id, kind, the function that computed it and the edition, if given.

    >>> v = Value(id="x", text="1 GiB", description="d", kind="assumed", number=1.0)
    >>> title(v, function="m.f", version="0.1.0", catalog_as_of="2026-01-31")
    'x: assumed by m.f, v0.1.0, catalog as of 2026-01-31'
    >>> title(v, function="m.f")
    'x: assumed by m.f'
    """
    stamp = edition(version, catalog_as_of)
    return f"{value.id}: {value.kind} by {function}" + (f", {stamp}" if stamp else "")


def render_value(value: Value, *, function: str, version: str = "", catalog_as_of: str = "") -> str:
    """The generated body of a value marker: the number in a span carrying its id and provenance."""
    hover = html.escape(title(value, function=function, version=version, catalog_as_of=catalog_as_of))
    return f'<span class="generated-value" id="{value.id}" title="{hover}">{html.escape(value.text, quote=False)}</span>'


# --------------------------------------------------------------------------- pages
def update_values(text: str, values: Mapping[str, ValueFunction], *, version: str = "",
                  catalog_as_of: str = "") -> str:
    """Return ``text`` with every ``<!-- value: ID -->`` marker regenerated (the edition as :func:`title`).

    Raises:
        UnknownNameError: a marker names an id nobody registered.
        ValueError: a marker opens a line (Python-Markdown would split the paragraph there).
    """
    if match := _LINE_START.search(text):
        line = text.count("\n", 0, match.start()) + 1
        raise ValueError(f"line {line}: value marker {match.group('id')!r} opens a line; start the sentence with a "
                         "word, or Python-Markdown reads the comment as an HTML block and splits the paragraph")

    def replace(match: re.Match[str]) -> str:
        value_id = match.group("id")
        if value_id not in values:
            raise UnknownNameError("value", value_id, sorted(values))
        function = values[value_id]
        value = function()
        if value.id != value_id:
            raise ValueError(f"value function {function_name(function)} registered as {value_id!r} "
                             f"returns id {value.id!r}")
        body = render_value(value, function=function_name(function), version=version, catalog_as_of=catalog_as_of)
        return match.group(1) + body + match.group(4)

    return _MARKER.sub(replace, text)


def value_markers(text: str) -> Iterator[tuple[str, str, int]]:
    """(id, text shown, 1-based line) of every value marker of a page, in order."""
    for match in _MARKER.finditer(text):
        yield match.group("id"), html.unescape(_TAG.sub("", match.group("body"))), \
            text.count("\n", 0, match.start()) + 1


def value_ids(text: str) -> list[str]:
    """Ids of the value markers in a page, in order.

    >>> value_ids("a <!-- value: x -->1<!-- /value --> b <!-- value: y -->2<!-- /value -->")
    ['x', 'y']
    """
    return [value_id for value_id, _text, _line in value_markers(text)]


def shown_values(text: str) -> dict[str, str]:
    """Value id -> the text a page shows for it (tags stripped), first marker per id."""
    found: dict[str, str] = {}
    for value_id, shown, _line in value_markers(text):
        found.setdefault(value_id, shown)
    return found


def strip_values(text: str) -> str:
    """``text`` with every value marker and its body removed (for checks on the remaining prose).

    >>> strip_values("needs <!-- value: x -->17 GiB<!-- /value --> in all")
    'needs  in all'
    """
    return _MARKER.sub("", text)


def to_record(value: Value, *, function: str, version: str, catalog_as_of: str = "", page: str = "",
              url: str = "") -> dict[str, object]:
    """A value with its provenance as a JSON-ready dict (one entry of the site's ``values.json``).

    >>> v = Value(id="x", text="1.0 GiB", description="d", kind="derived", number=1.0, unit="GiB")
    >>> record = to_record(v, function="m.f", version="0.1.0")
    >>> record["function"], record["citation"]
    ('m.f', 'Sizing ML Hardware, version 0.1.0, value x.')
    >>> import json
    >>> json.loads(json.dumps(record)) == record
    True
    """
    return {
        "id": value.id, "text": value.text, "number": value.number, "unit": value.unit,
        "description": value.description, "kind": value.kind, "assumptions": list(value.assumptions),
        "function": function, "version": version, "catalog_as_of": catalog_as_of, "page": page, "url": url,
        "citation": citation(f"value {value.id}", version=version, catalog_as_of=catalog_as_of),
    }
