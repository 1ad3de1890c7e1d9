"""Static vs continuous batching: what fraction of a batch's slots produce tokens.

A decode step costs about the same whether a slot holds a live sequence or not (the
weights are read once per step either way), so throughput scales with the fraction of
slots that are busy. Two explicit models:

* **static**: a batch starts together and ends when its longest sequence ends; a
  finished sequence's slot idles until then. Utilisation = mean length / max length.
* **continuous** (iteration-level scheduling, Orca; vLLM): a finished sequence's slot
  is refilled at the next step from the queue. With a queue that never runs dry,
  utilisation is 1; the prefill of arriving requests and the drain at the end of the
  queue are not modelled.

>>> static_utilisation([100, 200, 300, 400])
0.625
>>> batching_utilisation([100, 400], policy="continuous")
1.0
"""

from __future__ import annotations

from collections.abc import Sequence

from calculators.errors import InputError
from calculators.memory.inference import MAX_CONTEXT
from calculators.validate import one_of, positive_int

POLICIES = ("static", "continuous")
MAX_SEQUENCES = 1 << 20


def _lengths(lengths: Sequence[int]) -> list[int]:
    if isinstance(lengths, (str, bytes)) or not hasattr(lengths, "__len__") or not 1 <= len(lengths) <= MAX_SEQUENCES:
        raise InputError("lengths", lengths, f"a list of 1 to {MAX_SEQUENCES} token counts")
    return [positive_int("lengths", n, maximum=MAX_CONTEXT) for n in lengths]


def static_utilisation(lengths: Sequence[int]) -> float:
    """Fraction of slot-steps that produce a token in one static batch (0 to 1).

    Formula: ``mean(lengths) / max(lengths)``, where ``lengths`` are the new tokens of
    each sequence in the batch.
    """
    values = _lengths(lengths)
    return sum(values) / (len(values) * max(values))


def batching_utilisation(lengths: Sequence[int], *, policy: str = "static") -> float:
    """Slot utilisation under ``policy`` (``static`` or ``continuous``), 0 to 1.

    Multiply an aggregate decode rate at full batch by it to get the useful tokens/s.
    """
    policy = one_of("policy", policy, POLICIES)
    values = _lengths(lengths)
    return 1.0 if policy == "continuous" else static_utilisation(values)


def uniform_lengths(shortest: int, longest: int, *, count: int = 64) -> list[int]:
    """``count`` output lengths spread evenly from ``shortest`` to ``longest`` tokens.

    >>> uniform_lengths(1, 7, count=4)
    [1, 3, 5, 7]
    """
    shortest = positive_int("shortest", shortest, maximum=MAX_CONTEXT)
    longest = positive_int("longest", longest, maximum=MAX_CONTEXT)
    count = positive_int("count", count, maximum=MAX_SEQUENCES)
    if longest < shortest:
        raise InputError("longest", longest, f"at least shortest ({shortest})")
    if count == 1:
        return [longest]
    return [shortest + (longest - shortest) * i // (count - 1) for i in range(count)]
