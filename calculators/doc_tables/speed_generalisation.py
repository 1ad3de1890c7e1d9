"""Tables of the generalisation section of "How accurate is the speed model?" (docs/performance/accuracy.md).

Every number comes from :mod:`calculators.speed_accuracy.generalisation`: each published
figure of ``tests/data/published_speed`` estimated with its source, its engine or its hardware
generation held out of every fit.

>>> speed_generalisation_table().columns[0]
'split'
"""

from __future__ import annotations

from calculators.speed_accuracy import MIN_RECORDS
from calculators.speed_accuracy import generalisation as gen
from calculators.speed_accuracy.data import CATEGORY_TITLES
from calculators.columns import Column
from calculators.tables import Table, TableFunction, declared_tables, table

METHOD = ("each figure estimated through the public API with every fitted constant (engine efficiencies and fixed "
          "costs, training utilisation factors, fitted link efficiencies) refitted without the figures of its "
          "held-out group: its source document, its engine (inference engine, training software, link kind) or its "
          "hardware generation (calculators.catalog.generations); errors on the speed axis, positive over-promises "
          "(calculators.speed_accuracy.generalisation)")


def _pct(value: float) -> str:
    return f"{value * 100:,.0f} %"


def _meets(value: bool | None) -> str:
    return f"n < {MIN_RECORDS}: no target" if value is None else "yes" if value else "no"


def _category(name: str) -> str:
    return CATEGORY_TITLES.get(name, name)


@table("speed-generalisation")
def speed_generalisation_table() -> Table:
    """Per held-out split and category (and all figures): count, median, 90th percentile and worst |error|."""
    rows = [(gen.SPLIT_TITLES[item["split"]], _category(str(item["category"])), item["n"], item["median"],
             item["p90"], item["worst"], _meets(item["meets"])) for item in gen.summary_by_split()]
    return Table.of(
        caption=("How the speed model generalises: every published figure estimated with its own source, its engine, "
                 "or its hardware generation held out of every fit, per category and for all figures together. Target "
                 f"(issue 28) in each split, for all figures and for every category with {MIN_RECORDS} or more "
                 f"figures: median |error| <= {_pct(gen.TARGET_MEDIAN)} and 90th percentile <= "
                 f"{_pct(gen.TARGET_P90)}."),
        columns=(Column("split"), Column("category"), Column("figures", align="r"),
                 *(Column(name, _pct, "r") for name in ("median |error|", "90th pct", "worst")),
                 Column("meets target")),
        rows=rows, assumptions=(METHOD,))


@table("speed-generalisation-groups")
def speed_generalisation_groups_table() -> Table:
    """Per engine and per hardware generation held out: the errors of its figures, by category."""
    rows = []
    for split in ("engine", "generation"):
        for item in gen.by_group(split):
            rows.append((gen.SPLIT_TITLES[split], gen.group_title(split, str(item["group"])),
                         _category(str(item["category"])), item["n"], item["median"], item["p90"], item["worst"]))
    return Table.of(
        caption=("Where generalisation fails: the figures of each engine and of each hardware generation when that "
                 "engine or generation is held out of every fit. A group with no other figure to learn from takes the "
                 "constants of the others (an engine the pooled fit, a GPU generation the other generations' "
                 "utilisation): its error is what a user of an engine or GPU the project has no measurement of gets."),
        columns=(Column("split"), Column("held out"), Column("category"), Column("figures", align="r"),
                 *(Column(name, _pct, "r") for name in ("median |error|", "90th pct", "worst"))),
        rows=rows, assumptions=(METHOD,))


TABLES: dict[str, TableFunction] = declared_tables(globals())
