"""The answer a reader asks for first, in words: on their GPU and count, the verdict and the margin.

Every calculator with a memory verdict opens with :func:`headline` of its
:class:`~calculators.fit.placement.Placement` ("On 2x GeForce RTX 4090, tensor or pipeline
parallel: tight, ...; 3 fit with ..."), and a table of GPUs says how many each needs with
:func:`needed_text` ("2 (tight) · 3 (fits)"). The words and the numbers come from
:mod:`calculators.fit` (the one verdict) and :mod:`calculators.units` only.

>>> from calculators.fit import FitVerdict, Placement
>>> from calculators.units import GIB
>>> tight = FitVerdict("tight", int(23.2 * GIB), int(1.7 * GIB), int(23.6 * GIB))
>>> fits = FitVerdict("fits", int(19.5 * GIB), int(1.7 * GIB), int(23.6 * GIB))
>>> placed = Placement("rtx-4090", "GeForce RTX 4090", 2, "tensor or pipeline parallel", tight, 2, 3, fits,
...                    "every count, tensor or pipeline parallel")
>>> headline(placed)
'On 2x GeForce RTX 4090, tensor or pipeline parallel: tight, 0.4 GiB to spare of 23.6 GiB usable per GPU, inside the 1.7 GiB measured uncertainty; 3 fit with 4.1 GiB to spare each.'
>>> needed_text(placed)
'2 (tight) · 3 (fits)'
"""

from __future__ import annotations

from collections.abc import Sequence

from calculators.fit import DOES_NOT_FIT, FITS, MAX_GPUS_SEARCHED, TIGHT, FitVerdict, Placement
from calculators.jobs.report import Paragraph
from calculators.memory.checkpoint_weights import STORED_NOTE_START
from calculators.units import gib, gib_nonzero, number

#: The CSS class of a verdict on the web face (headline and table rows).
VERDICT_CLASS = {FITS: "mlhw-fits", TIGHT: "mlhw-tight", DOES_NOT_FIT: "mlhw-short"}
#: What each verdict means, said once under every table and headline that uses them.
VERDICT_KEY = ("fits: the total plus its measured uncertainty fits the memory a process can allocate; "
               "tight: only the total does (it ran on some measured setups and not others: a risk); "
               "does not fit: the total is above it")


def verdict_text(verdict: FitVerdict, *, each: bool = False) -> str:
    """The verdict and the margin in words: ``fits, 6.4 GiB to spare of 23.6 GiB usable`` (``each``: per GPU).

    >>> from calculators.units import GIB
    >>> verdict_text(FitVerdict("does not fit", 30 * GIB, 2 * GIB, int(23.64 * GIB)))
    'does not fit, 6.4 GiB over the 23.6 GiB usable'
    >>> verdict_text(FitVerdict("does not fit", 10 * GIB + 2**25, GIB, 10 * GIB))
    'does not fit, 0.03 GiB over the 10.0 GiB usable'
    """
    usable = f"{gib(verdict.usable_bytes, 1)} GiB usable" + (" per GPU" if each else "")
    margin = gib_nonzero(abs(verdict.margin_bytes))
    if verdict.verdict == FITS:
        return f"fits, {margin} GiB to spare of {usable}"
    if verdict.verdict == TIGHT:
        return (f"tight, {margin} GiB to spare of {usable}, inside the {gib(verdict.uncertainty_bytes, 1)} GiB "
                "measured uncertainty")
    return f"does not fit, {margin} GiB over the {usable}"


def where_text(placed: Placement) -> str:
    """``On 2x GeForce RTX 4090, tensor or pipeline parallel`` (``On 1x H100 SXM 80GB`` on one GPU)."""
    return f"On {number(placed.gpus)}x {placed.gpu_name}" + (f", {placed.split}" if placed.split else "")


def _count(count: int, verb: str) -> str:
    """``3 fit``, ``1 fits``: a count of GPUs with its verb."""
    return f"{number(count)} {verb}{'s' if count == 1 else ''}"


def headline(placed: Placement) -> str:
    """The first sentence of an answer: where, the verdict and margin, then (when the reader's count does not fit)
    the fewest GPUs that are tight and that fit.

    >>> from calculators.units import GIB
    >>> over = FitVerdict("does not fit", 150 * GIB, 2 * GIB, 79 * GIB)
    >>> placed = Placement("h100-sxm", "H100 SXM 80GB", 1, "", over, 2, 2, FitVerdict("fits", 70 * GIB, 2 * GIB,
    ...                    79 * GIB), "powers of two, data parallel with ZeRO-3")
    >>> headline(placed)
    'On 1x H100 SXM 80GB: does not fit, 71.0 GiB over the 79.0 GiB usable; 2 fit with 9.0 GiB to spare each (data parallel with ZeRO-3).'
    """
    text = f"{where_text(placed)}: {verdict_text(placed.verdict, each=placed.gpus > 1)}"
    if placed.verdict.fits or not placed.searched:
        return text + "."
    scheme = placed.searched.split(", ", 1)[-1]
    said = placed.split and scheme == placed.split
    parts = []
    if placed.fewest_tight is not None and placed.fewest_tight != placed.gpus and (
            placed.fewest_fits is None or placed.fewest_tight < placed.fewest_fits):
        parts.append(f"{number(placed.fewest_tight)} would be tight")
    if placed.fewest_fits is not None and placed.fewest_fits_verdict is not None:
        spare = gib_nonzero(placed.fewest_fits_verdict.margin_bytes)
        parts.append(f"{_count(placed.fewest_fits, 'fit')} with {spare} GiB to spare"
                     + (" each" if placed.fewest_fits > 1 else ""))
    else:
        parts.append(f"no count up to {number(MAX_GPUS_SEARCHED)} fits")
    return text + "; " + ", ".join(parts) + ("" if said else f" ({scheme})") + "."


def needed_text(placed: Placement) -> str:
    """The fewest GPUs, tight and fitting: ``2 (tight) · 3 (fits)``, ``1 (fits)``; ``over 1,024`` when none.

    >>> from calculators.units import GIB
    >>> verdict = FitVerdict("fits", GIB, 0, 2 * GIB)
    >>> needed_text(Placement("a", "A", 1, "", verdict, 1, 1, verdict, "every count"))
    '1 (fits)'
    """
    limit = f"over {number(MAX_GPUS_SEARCHED)}"
    if placed.fewest_fits is None:
        return limit if placed.fewest_tight is None else f"{number(placed.fewest_tight)} (tight) · {limit} to fit"
    if placed.fewest_tight is None or placed.fewest_tight == placed.fewest_fits:
        return f"{number(placed.fewest_fits)} (fits)"
    return f"{number(placed.fewest_tight)} (tight) · {number(placed.fewest_fits)} (fits)"


def limit_text(fits: int, tight: int) -> str:
    """The largest batch or context that fits, then the largest that is at most tight when it is larger:
    ``5``, ``5 (7 tight)``; ``none`` when not even one fits.

    >>> limit_text(5, 7), limit_text(5, 5), limit_text(0, 0), limit_text(0, 2)
    ('5 (7 tight)', '5', 'none', 'none (2 tight)')
    """
    shown = number(fits) if fits else "none"
    return shown if tight <= fits else f"{shown} ({number(tight)} tight)"


def stored_weights_first(notes: Sequence[str]) -> tuple[list[Paragraph], tuple[str, ...]]:
    """The note that the weights are sized as the checkpoint stores them (its ``quantization_config``), as a
    paragraph to follow the headline, and the other notes, each once: a reader must know which weights were
    sized before reading the numbers.

    >>> stored_weights_first([STORED_NOTE_START + ": MXFP4 experts", "a note", "a note"])
    ([Paragraph(text='Weights as the checkpoint stores them: MXFP4 experts.', css='mlhw-summary')], ('a note',))
    """
    stored = list(dict.fromkeys(note for note in notes if note.startswith(STORED_NOTE_START)))
    rest = tuple(dict.fromkeys(note for note in notes if not note.startswith(STORED_NOTE_START)))
    return [Paragraph(f"{note[0].upper()}{note[1:]}.") for note in stored], rest
