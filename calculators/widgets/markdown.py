"""Expand ``<!-- widget: NAME key=value ... -->`` markers in Markdown into widget HTML.

A marker stands alone on its line; ``key=value`` pairs override the calculator's
defaults (quote a value with spaces: ``model="Llama 3 8B"``). Markers inside fenced code
blocks are left alone, so a page can show the syntax. An unknown calculator, an unknown
input or a value out of range raises :class:`WidgetMarkupError` naming the page and
line, which fails the site build.

>>> page = "# Fit\\n\\n<!-- widget: kv-cache context=8192 -->\\n\\nText."
>>> html = expand_widgets(page, source="demo.md")
>>> html.count('data-calculator="kv-cache"'), 'value="8192"' in html
(1, True)

A widget that does not stand right under a heading gets one, a level below the section it is
in, so that every calculator is listed in the page's contents (issue 27 item 8):

>>> html = expand_widgets("## Reference\\n\\nText.\\n\\n<!-- widget: kv-cache -->", source="demo.md")
>>> [line for line in html.split("\\n") if line.startswith("#")]
['## Reference', '### Calculator: KV cache']

>>> expand_widgets("<!-- widget: nope -->", source="demo.md")
Traceback (most recent call last):
...
calculators.widgets.markdown.WidgetMarkupError: demo.md line 1: calculator: got 'nope'; expected one of: ...
"""

from __future__ import annotations

import re
import shlex

from calculators.errors import CalculatorError
from calculators.jobs.registry import get_calculator
from calculators.widgets.api import widget_html

MARKER = re.compile(r"^[ ]{0,3}<!--\s*widget:\s*(?P<body>.*?)\s*-->\s*$")
_FENCE = re.compile(r"^[ ]{0,3}(?P<fence>`{3,}|~{3,})")
_KEY = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_HEADING = re.compile(r"^(?P<hashes>#{1,6})\s")
#: The words that open the heading given to a widget outside a heading of its own.
HEADING_PREFIX = "Calculator: "


class WidgetMarkupError(ValueError):
    """A widget marker that names no calculator, no input, or a value out of range."""


def parse_marker(body: str) -> tuple[str, dict[str, str]]:
    """Split a marker's body into the calculator name and its overrides.

    >>> parse_marker('fit job=training model="llama-3-8b"')
    ('fit', {'job': 'training', 'model': 'llama-3-8b'})
    """
    try:
        words = shlex.split(body)
    except ValueError as error:
        raise WidgetMarkupError(f"cannot read the marker ({error})") from None
    if not words:
        raise WidgetMarkupError("the marker names no calculator: write <!-- widget: NAME key=value -->")
    name, overrides = words[0], {}
    for word in words[1:]:
        key, sep, value = word.partition("=")
        if not sep or not _KEY.match(key):
            raise WidgetMarkupError(f"expected key=value, got {word!r}")
        if key in overrides:
            raise WidgetMarkupError(f"{key} is given twice")
        overrides[key] = value
    return name, overrides


def expand_widgets(markdown: str, *, source: str = "<page>") -> str:
    """Replace every widget marker outside code fences with the widget's HTML.

    Each widget gets an id unique in the page (``mlhw-NAME-N``). The HTML is one line,
    so Markdown keeps it as a raw block. A widget in a section whose previous non-blank line
    is not a heading gets one, ``Calculator: TITLE``, a level below the section's heading (at
    most 6), so the page's table of contents lists it; a widget under the page's title alone
    opens the page and gets none.
    """
    out: list[str] = []
    fence: str | None = None
    count = 0
    level = 1  # the title's: a page's lead
    for number, line in enumerate(markdown.split("\n"), start=1):
        opened = _FENCE.match(line)
        if fence is not None:
            if opened and opened.group("fence")[0] == fence[0] and len(opened.group("fence")) >= len(fence):
                fence = None
            out.append(line)
            continue
        if opened:
            fence = opened.group("fence")
            out.append(line)
            continue
        match = MARKER.match(line)
        if match is None:
            heading = _HEADING.match(line)
            level = len(heading.group("hashes")) if heading else level
            out.append(line)
            continue
        try:
            name, overrides = parse_marker(match.group("body"))
            widget = widget_html(name, overrides, prefix=f"mlhw-{name}-{count}")
            above = next((previous for previous in reversed(out) if previous.strip()), "")
            if level > 1 and not _HEADING.match(above):  # under the title alone it opens the page: no heading
                out += ["", "#" * min(level + 1, 6) + " " + HEADING_PREFIX + get_calculator(name).title]
            # Blank lines around: Markdown keeps a raw HTML block only when it stands alone.
            out += ["", widget, ""]
        except (WidgetMarkupError, CalculatorError) as error:
            raise WidgetMarkupError(f"{source} line {number}: {error}") from None
        count += 1
    return "\n".join(out)
