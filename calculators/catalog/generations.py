"""Hardware generations: the architecture families the speed model is cross-validated over.

A generation groups the GPUs whose kernels, memory system and tensor cores are of one
design: what an estimate fitted on other generations has never seen. It is read from the
catalog's ``architecture`` (the vendor's name, e.g. ``"Hopper (GH100)"``, ``"CDNA 3"``), so a
record added to :mod:`calculators.catalog.gpus` falls in its generation without a list to
keep in step. Used by the leave-one-hardware-generation-out score
(:mod:`calculators.speed_accuracy.generalisation`) and the error band of a speed answer
(:mod:`calculators.performance.error_bands`).

==============  ===========================================================
generation      architecture names (vendor)
==============  ===========================================================
``volta``       Volta (NVIDIA, GV100)
``turing``      Turing (NVIDIA)
``ampere``      Ampere (NVIDIA: GA100, GA102, GA10x)
``ada``         Ada Lovelace (NVIDIA)
``hopper``      Hopper (NVIDIA: GH100, H20)
``blackwell``   Blackwell (NVIDIA: B200, GB200, GB202)
``cdna3``       CDNA 3 (AMD: MI300X, MI325X)
``cdna4``       CDNA 4 (AMD: MI355X)
``apple``       Apple silicon (M-series GPUs, ``mac:`` descriptions)
``other``       anything else (``custom:`` descriptions)
==============  ===========================================================

>>> from calculators.catalog.gpus import get_gpu
>>> [hardware_generation(get_gpu(g)) for g in ("a100-80gb-sxm", "rtx-4090", "h200", "mi300x", "m4-max")]
['ampere', 'ada', 'hopper', 'cdna3', 'apple']

References:
    the vendors' architecture names in each record of :mod:`calculators.catalog.gpus`.
"""

from __future__ import annotations

from calculators.catalog.gpus import GPU

#: Every generation, oldest NVIDIA first, then AMD, Apple and the rest.
GENERATIONS: tuple[str, ...] = ("volta", "turing", "ampere", "ada", "hopper", "blackwell", "cdna3", "cdna4", "apple",
                                "other")
#: Generation -> words for tables.
GENERATION_TITLES: dict[str, str] = {
    "volta": "Volta", "turing": "Turing", "ampere": "Ampere", "ada": "Ada Lovelace", "hopper": "Hopper",
    "blackwell": "Blackwell", "cdna3": "AMD CDNA 3", "cdna4": "AMD CDNA 4", "apple": "Apple silicon",
    "other": "other",
}
#: (substring of the lower-case architecture name, generation), first match wins.
_PATTERNS: tuple[tuple[str, str], ...] = (
    ("volta", "volta"), ("turing", "turing"), ("ampere", "ampere"), ("ada", "ada"), ("hopper", "hopper"),
    ("blackwell", "blackwell"), ("cdna 4", "cdna4"), ("cdna4", "cdna4"), ("cdna 3", "cdna3"), ("cdna3", "cdna3"),
    ("apple", "apple"),
)


def hardware_generation(gpu: GPU) -> str:
    """The generation of a GPU record (a catalog GPU, a Mac or a custom one), one of :data:`GENERATIONS`.

    Apple parts are ``apple`` by vendor whatever their architecture says (``"Apple M4"``).

    >>> from calculators.catalog.gpus import get_gpu
    >>> hardware_generation(get_gpu("b200"))
    'blackwell'
    """
    record = gpu
    if record.vendor == "Apple":
        return "apple"
    name = record.architecture.lower()
    for pattern, generation in _PATTERNS:
        if pattern in name:
            return generation
    return "other"
