"""The one reading of a model as a user names it: a record, a catalog id, or a ``config.json``.

Every face and every engine entry point turns its model into a
:class:`~calculators.model.ModelSpec` here, once per call (:func:`resolve_model`); below that
the engine takes the record and trusts it. A ``config.json`` is read within the limits of
:mod:`calculators.config_input` and by the family readers of :mod:`calculators.model_config`.

>>> resolve_model("llama-3-8b").parameters
8030261248
>>> resolve_model('{"model_type": "llama", "hidden_size": 64, "num_hidden_layers": 1,'
...               ' "num_attention_heads": 4, "intermediate_size": 128, "vocab_size": 10}').hidden_size
64
>>> resolve_model(None, field="spec")
Traceback (most recent call last):
...
calculators.errors.InputError: spec: got None; expected a ModelSpec, a catalog model id (calculators.get_model), or a config.json as a dict, its JSON text or a path
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from calculators.catalog.models import get_model
from calculators.errors import InputError, UnknownNameError
from calculators.model import ModelSpec
from calculators.model_config import spec_from_config

#: What :func:`resolve_model` accepts, as its errors say.
ACCEPTED = ("a ModelSpec, a catalog model id (calculators.get_model), or a config.json as a dict, its JSON text "
            "or a path")


def resolve_model(value: ModelSpec | str | Mapping[str, Any] | os.PathLike[str], *, field: str = "model",
                  name: str | None = None) -> ModelSpec:
    """The :class:`~calculators.model.ModelSpec` that ``value`` names; a record is returned as it is.

    A ``str`` is a config.json's JSON text when it starts with ``{`` or ``[`` (after blanks and a
    byte-order mark), a path to one when it ends in ``.json``, else a catalog id, display name or
    Hugging Face repository (:func:`~calculators.catalog.models.get_model_record`). A dict is a
    config.json's content; an ``os.PathLike`` a path to one.

    Args:
        value: what the user gave.
        field: the input it came from, named in errors (``model``; ``spec``, the engine's keyword;
            ``config``, a form's pasted text). A config's own errors name ``config.<key>``.
        name: the display name of a model read from a config.json (default: its
            ``_name_or_path``, else its ``model_type``); ignored for a record or a catalog model.

    Raises:
        UnknownNameError: no catalog model of that name (suggesting close ids).
        InputError: a value of another type, or a config.json that cannot be read.
    """
    if isinstance(value, ModelSpec):
        return value
    if isinstance(value, Mapping):
        return spec_from_config(value, name=name)
    if isinstance(value, os.PathLike):
        path = os.fspath(value)
        if not isinstance(path, str):
            raise InputError(field, value, ACCEPTED)
        return spec_from_config(Path(path), name=name)
    if not isinstance(value, str):
        raise InputError(field, value, ACCEPTED)
    text = value.strip()
    if text.lstrip("\ufeff \t\r\n").startswith(("{", "[")) or text.endswith(".json"):
        return spec_from_config(text, name=name)
    try:
        return get_model(text)
    except UnknownNameError as error:
        raise error if field == "model" else error.renamed(field) from None
