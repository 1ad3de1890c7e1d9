"""The catalog's edition: the latest date any GPU or model record was read or published.

Every generated table on the site states this date next to the package version, so a
citation says which edition of the catalog its numbers come from. It is the newest
``as_of`` among the :class:`~calculators.catalog.sources.Source` of every GPU record
(its ``source`` and ``field_sources``) and every model record (its ``source`` and
``published_parameters_source``). A new catalog module adds its records here.

>>> catalog_as_of() >= "2022-01-01"
True
>>> len(catalog_as_of())  # ISO date
10
"""

from __future__ import annotations

from collections.abc import Iterator

from calculators.catalog.gpus import all_gpus
from calculators.catalog.models import all_models
from calculators.catalog.sources import Source


def catalog_sources() -> Iterator[Source]:
    """Every source cited by a GPU or model record, records in catalog order."""
    for gpu in all_gpus():
        yield gpu.source
        yield from (source for _field, source in gpu.field_sources)
    for model in all_models():
        yield model.source
        if model.published_parameters_source is not None:
            yield model.published_parameters_source


def catalog_as_of() -> str:
    """The catalog's as-of date (ISO ``YYYY-MM-DD``): the latest ``as_of`` of its records' sources.

    Returns:
        The newest date; ISO dates compare correctly as strings.

    References:
        docs/tables/index.md (every table caption states it).
    """
    return max(source.as_of for source in catalog_sources())
