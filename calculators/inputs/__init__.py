"""The front door: what a user gives, declared once and read once, for every face.

* :mod:`~calculators.inputs.model`: :func:`resolve_model`, the one reading of a model (a
  :class:`~calculators.model.ModelSpec`, a catalog id, or a config.json as a dict, its text or a path);
* :mod:`~calculators.inputs.gpu`: :func:`resolve_gpu`, the one reading of a GPU (a
  :class:`~calculators.catalog.gpus.GPU`, a catalog id, or a ``custom:``/``mac:`` description);
* :mod:`~calculators.inputs.fields`: :class:`Field`, one input of a calculator (label, kind, unit,
  range or choices, default, help, command-line flag, the faces that offer it);
* :mod:`~calculators.inputs.shared`: the model and GPU fields most calculators share.

This package sits above the catalog and below the engine (``tests/engine/test_import_layers.py``):
an engine entry point resolves its model and GPU here once per call, and passes the records
down; the functions below trust a record and never resolve it again. The faces (the command
line, the widgets) read their inputs with the same two functions and declare them with the same
fields.

>>> resolve_model("qwen2.5-0.5b").parameters, resolve_gpu("rtx-4090").memory_gib
(494032768, 24.0)
"""

from __future__ import annotations

from calculators.inputs.fields import Field
from calculators.inputs.gpu import resolve_gpu
from calculators.inputs.model import resolve_model

__all__ = ["Field", "resolve_gpu", "resolve_model"]
