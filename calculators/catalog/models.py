"""Catalog of open-weight language models: their ``config.json`` shapes and published sizes.

Each :class:`ModelRecord` keeps the ``config.json`` keys that decide memory and compute
(copied from the official Hugging Face repository), the address it came from, and, where
one exists, an exact parameter count that someone other than this package published:
the Hugging Face model API's ``safetensors.total``, a safetensors index's
``metadata.total_size`` (bytes, halved for a 16-bit checkpoint), or a framework's
preset metadata. The tests check :attr:`ModelSpec.parameters
<calculators.model.ModelSpec.parameters>` against every published figure.

A published count is the number of elements stored in the checkpoint, which is not
always the number of model parameters. Where they differ, each record says by how much
in :attr:`ModelRecord.published_extra_elements`, and why in its notes:

* the Llama 2 checkpoints store a 64-wide ``rotary_emb.inv_freq`` buffer per layer;
* DeepSeek-V3's and R1's hub totals include the multi-token-prediction module and the
  FP32 block scales of their FP8 weights;
* Qwen3-0.6B's checkpoint stores a copy of its tied output head;
* the Gemma 3 (4B, 12B, 27B) and Mistral Small 3.x checkpoints hold a vision encoder
  and projector besides the language model this catalog sizes.

The records live in :mod:`calculators.catalog.model_records`, one module per family;
this module finds them by id, name or repository.

>>> record = get_model_record("Llama 3 8B")
>>> record.id, record.hf_repo
('llama-3-8b', 'meta-llama/Meta-Llama-3-8B')
>>> get_model("qwen2.5-0.5b").parameters
494032768
>>> get_model_record("Qwen/Qwen2.5-0.5B").published_parameters
494032768
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from calculators.catalog.model_record import ModelRecord
from calculators.catalog.model_records import RECORDS as _RECORDS
from calculators.errors import UnknownNameError
from calculators.model import ModelSpec

__all__ = ["READ_ON", "ModelRecord", "all_models", "get_model", "get_model_record", "model_ids"]

#: The catalog's as-of date: the latest day any of its configs or counts was read.
READ_ON: str = max(s.as_of for r in _RECORDS for s in (r.source, r.published_parameters_source) if s is not None)

_BY_ID: Mapping[str, ModelRecord] = MappingProxyType({r.id: r for r in _RECORDS})


def _key(text: str) -> str:
    return " ".join(text.strip().lower().replace("_", " ").split())


def _index() -> dict[str, ModelRecord]:
    keys: dict[str, ModelRecord] = {}
    for r in _RECORDS:
        for alias in (r.id, r.name, r.hf_repo, r.hf_repo.split("/", 1)[1]):
            keys.setdefault(_key(alias), r)
    return keys


_LOOKUP: Mapping[str, ModelRecord] = MappingProxyType(_index())


# --------------------------------------------------------------------------- public API
def model_ids() -> list[str]:
    """Ids of every catalogued model, in catalog order.

    Returns:
        The ids, e.g. ``["llama-2-7b", ...]``.

    Example:
        >>> "deepseek-v3" in model_ids()
        True
    """
    return [r.id for r in _RECORDS]


def all_models() -> tuple[ModelRecord, ...]:
    """Every catalogued :class:`ModelRecord`, in catalog order.

    Returns:
        The records.

    Example:
        >>> len(all_models()) == len(model_ids())
        True
    """
    return _RECORDS


def get_model_record(id_or_name: str) -> ModelRecord:
    """Find a record by id, display name or Hugging Face repository (any letter case).

    Args:
        id_or_name: ``"llama-3-8b"``, ``"Llama 3 8B"``, ``"meta-llama/Meta-Llama-3-8B"``
            or ``"Meta-Llama-3-8B"``.

    Returns:
        The matching record.

    Raises:
        UnknownNameError: No record matches; the message lists the ids and the closest ones.

    Example:
        >>> get_model_record("MIXTRAL-8X7B").name
        'Mixtral 8x7B'
        >>> get_model_record("llama-3-8")
        Traceback (most recent call last):
        ...
        calculators.errors.UnknownNameError: model: got 'llama-3-8'; expected one of: ...
    """
    if not isinstance(id_or_name, str):
        raise UnknownNameError("model", repr(id_or_name), model_ids())
    record = _BY_ID.get(id_or_name) or _LOOKUP.get(_key(id_or_name))
    if record is None:
        raise UnknownNameError("model", id_or_name, model_ids())
    return record



def model_name(id_or_name: str) -> str:
    """The display name of a catalog model, for tables and prose.

    >>> model_name("llama-3-8b")
    'Llama 3 8B'
    """
    return get_model_record(id_or_name).name


def get_model(id_or_name: str) -> ModelSpec:
    """The :class:`~calculators.model.ModelSpec` of a catalogued model.

    Args:
        id_or_name: Anything :func:`get_model_record` accepts.

    Returns:
        The parsed shapes, named with the record's display name.

    Raises:
        UnknownNameError: No record matches.

    Example:
        >>> spec = get_model("mixtral-8x7b")
        >>> spec.parameters, spec.active_parameters
        (46702792704, 12879925248)
    """
    return get_model_record(id_or_name).spec()
