"""Units: the one place the package defines byte multiples and turns a quantity into text.

Binary multiples (``GIB``, 2^30 bytes) measure memory, as ``torch.cuda`` and nvidia-smi's
MiB do; decimal multiples (``GB``, 10^9 bytes) measure bandwidth and disk, as datasheets do.

>>> GIB, MIB, KIB
(1073741824, 1048576, 1024)
>>> gib(3 * 2**29), gib(1234.5 * GIB), gib(1234.5 * GIB, grouped=False), gib(80 * GIB, digits=0)
('1.50', '1,234.50', '1234.50', '80')
>>> gb(900e9, 0), gb(1800e9, 1), gb(1800e9, 1, grouped=False)
('900', '1,800.0', '1800.0')
>>> token_text(10**9), token_text(15 * 10**12), token_text(2_500_000), token_text(1234), token_text(1234567)
('1B', '15T', '2.5M', '1.234k', '1234567')
>>> signed_percent(0.123), signed_percent(-0.5), number(12345.678), number(0.1234, 2)
('+12 %', '-50 %', '12,346', '0.12')
>>> gib_nonzero(0.03 * GIB), signed_gib(-0.03 * GIB), signed_gib(6.4 * GIB), signed_gib(0)
('0.03', '-0.03', '+6.4', '0.0')
"""

from __future__ import annotations

KIB = 2**10
MIB = 2**20
GIB = 2**30
GB = 10**9
#: Seconds in an hour and in a day: every time in hours or days (GPU-hours, wall clock, prices per hour) divides by these.
SECONDS_PER_HOUR = 3600.0
SECONDS_PER_DAY = 86400.0


def gib(value_bytes: float, digits: int = 2, *, grouped: bool = True) -> str:
    """Bytes as GiB (2^30 bytes) with ``digits`` decimals, with thousands separators unless ``grouped`` is False."""
    return f"{value_bytes / GIB:,.{digits}f}" if grouped else f"{value_bytes / GIB:.{digits}f}"


def gb(value_bytes: float, digits: int = 2, *, grouped: bool = True) -> str:
    """Bytes (or bytes/s) as decimal GB (10^9 bytes) with ``digits`` decimals, grouped as :func:`gib`."""
    return f"{value_bytes / GB:,.{digits}f}" if grouped else f"{value_bytes / GB:.{digits}f}"


#: Most decimals :func:`gib_nonzero` adds to show a small amount (0.001 GiB is about one MiB).
MAX_GIB_DIGITS = 3


def gib_nonzero(value_bytes: float, digits: int = 1) -> str:
    """Bytes as GiB with ``digits`` decimals, or more (up to :data:`MAX_GIB_DIGITS`) where fewer would show a
    nonzero amount as zero; below that, ``<0.001``: a margin of a few MiB never reads as none.

    >>> gib_nonzero(2.5 * GIB), gib_nonzero(0.004 * GIB), gib_nonzero(2**10), gib_nonzero(0)
    ('2.5', '0.004', '<0.001', '0.0')
    """
    shown = digits
    while value_bytes and shown < MAX_GIB_DIGITS and round(abs(value_bytes) / GIB, shown) == 0:
        shown += 1
    if value_bytes and round(abs(value_bytes) / GIB, shown) == 0:
        return f"<{10.0 ** -shown:.{shown}f}"
    return gib(value_bytes, shown)


def signed_gib(value_bytes: float, digits: int = 1) -> str:
    """A margin in GiB with its sign (``+6.4`` to spare, ``-2.5`` over), never ``-0.0``: a small nonzero
    margin keeps its sign and gets the decimals that show it (:func:`gib_nonzero`); zero is unsigned."""
    text = gib_nonzero(abs(value_bytes), digits)
    return text if not value_bytes else ("+" if value_bytes > 0 else "-") + text


#: Suffixes of a count, largest first: what ``2T``, ``500B``, ``10M`` and ``5k`` stand for.
COUNT_SUFFIXES = (("T", 10**12), ("B", 10**9), ("M", 10**6), ("k", 10**3))


def token_text(count: int) -> str:
    """A token count as it is typed: ``1B``, ``15T``, ``2.5M``: the largest suffix that spells it exactly."""
    for suffix, size in COUNT_SUFFIXES:
        text = f"{count / size:g}"
        if count >= size and round(float(text) * size) == count:
            return f"{text}{suffix}"
    return str(count)


def signed_percent(fraction: float) -> str:
    """A signed fraction as a whole percentage (an error: ``+12 %`` over, ``-50 %`` under); one that rounds
    to zero prints unsigned.

    >>> signed_percent(0.12), signed_percent(-0.5), signed_percent(-0.004), signed_percent(150.0)
    ('+12 %', '-50 %', '0 %', '+15,000 %')
    """
    return "0 %" if round(fraction * 100) == 0 else f"{fraction * 100:+,.0f} %"


def signed_error(fraction: float, digits: int = 2) -> str:
    """A signed error as a percentage with ``digits`` decimals (``+1.26%``, ``-0.40%``), never ``-0.00%``:
    an error that rounds to zero at those decimals prints unsigned.

    >>> signed_error(0.0126), signed_error(-0.004), signed_error(-0.00001), signed_error(0.3, 0)
    ('+1.26%', '-0.40%', '0.00%', '+30%')
    """
    if round(fraction * 100, digits) == 0:
        return f"{0:.{digits}%}"
    return f"{fraction:+.{digits}%}"


def number(value: float, digits: int = 0, *, grouped: bool = True) -> str:
    """A number with ``digits`` decimals, with thousands separators unless ``grouped`` is False."""
    return f"{value:,.{digits}f}" if grouped else f"{value:.{digits}f}"


def percent(fraction: float, digits: int = 0) -> str:
    """A fraction as a percentage with ``digits`` decimals, thousands grouped: ``percent(0.25)`` is ``'25 %'``,
    ``percent(150.0)`` is ``'15,000 %'``."""
    return f"{100 * fraction:,.{digits}f} %"
