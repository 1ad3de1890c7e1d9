"""The memory-measurement harness behind ``scripts/measure_memory.py``, one module per subject.

* :mod:`harness.presets`: the model configurations (``config.json`` values) the grids build.
* :mod:`harness.case`: one case (model, settings) and its id and command line.
* :mod:`harness.tracker`: the storage tracker (a ``TorchDispatchMode``) and the per-phase recorder.
* :mod:`harness.steps`: building a model and running training or inference steps under the tracker.
* :mod:`harness.record`: the JSON record of a run (settings, measured peaks, provenance).
* :mod:`harness.outcomes`: running a case with an out-of-memory error as an outcome, and the batch search.
* :mod:`harness.order`: a case's allocation order, as the caching allocator would receive it.
* :mod:`harness.grid`: the named grids (``--grid all`` regenerates ``tests/data/measurements/``).

Importing any of them needs only the standard library: torch, transformers and peft are
imported inside the functions that run a case. ``scripts/`` is not a package; the entry point
puts its folder on ``sys.path`` so ``harness`` imports as a top-level package.
"""
