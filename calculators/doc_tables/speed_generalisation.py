"""Tables of "Does the speed model generalise?" (docs/performance/accuracy-generalisation.md) and of the error
bands each speed answer carries (docs/performance/accuracy-bands.md).

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
from calculators.units import percent
from calculators.tables import Table, TableFunction, declared_tables, table

METHOD = ("each figure estimated through the public API with every fitted constant (engine efficiencies and fixed "
          "costs, training utilisation factors) refitted without the figures of its held-out group: its source "
          "document, its engine (inference engine, training software, link kind) or its hardware generation "
          "(calculators.catalog.generations); the link efficiencies are derived, not fitted, so a collective scores "
          "the same in every split; errors on the speed axis, positive over-promises "
          "(calculators.speed_accuracy.generalisation)")


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
                 f"figures: median |error| <= {percent(gen.TARGET_MEDIAN)} and 90th percentile <= "
                 f"{percent(gen.TARGET_P90)}."),
        columns=(Column("split"), Column("category"), Column("figures", align="r"),
                 *(Column(name, percent, "r") for name in ("median |error|", "90th pct", "worst")),
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
                 *(Column(name, percent, "r") for name in ("median |error|", "90th pct", "worst"))),
        rows=rows, assumptions=(METHOD,))


@table("speed-held-out")
def speed_held_out_table() -> Table:
    """The figures held out of every fit (tests/data/published_speed/held_out): count, median, 90th percentile and
    worst |error|, all together and per category."""
    from calculators.speed_accuracy import held_out

    rows = [(_category(str(item["category"])), item["n"], item["median"], item["p90"], item["worst"])
            for item in held_out.summary(held_out.held_out_rows())]
    return Table.of(
        caption=("Figures no fit has seen: published figures collected after the model was built, scored once on "
                 "first contact and kept out of every fit since (tests/data/published_speed/held_out), each estimated "
                 "with what the calculators answer. Issue 28's line for figures the project does not hold: median "
                 "|error| <= 15 % and 90th percentile <= 35 %."),
        columns=(Column("category"), Column("figures", align="r"),
                 *(Column(name, percent, "r") for name in ("median |error|", "90th pct", "worst"))),
        rows=rows, assumptions=(
            "the catalog's engine at the figure's version, the catalog's training utilisation fit (neither fitted on "
            "these figures) and the link model's derived efficiencies (nothing fitted); errors on the speed axis, "
            "positive over-promises (calculators.speed_accuracy.held_out)",
            "records kept but not scored (an engine build or setting the engine record does not describe) name "
            "their reason in the data file"))


_BAND_SETS = {"source": "its source held out", "engine": "its engine held out", "generation": "its GPU generation "
              "held out", "unseen": "its engine or its generation held out", "naive": "the naive roofline"}


def _factor(value: float) -> str:
    return f"{1 + value:.2f} x"


@table("speed-error-bands")
def speed_error_bands_table() -> Table:
    """The bands speed and time answers carry: per category and set of figures, the 10th-90th percentile range."""
    from calculators.catalog.speed_error_bands import BANDS

    rows = []
    for key, (n, low, high) in BANDS.items():
        category, split, engine, generation = key.split("|")
        if generation != "*":
            continue  # the engine-and-generation bands are in calculators/catalog/speed_error_bands.py
        rows.append((_category(category), "any" if engine == "*" else engine, _BAND_SETS[split], n, low, high))
    return Table.of(
        caption=("The error band every speed and time answer carries (calculators.performance.error_bands): for the "
                 "published figures like the answer, the range of measured time / estimated time that holds 80 % of "
                 "them (10th to 90th percentile). An answer on an engine and a GPU generation with figures reads its "
                 "engine's own row (on its generation where five or more figures allow); one on an engine or a "
                 "generation without figures reads the row with that engine or generation held out, so its band is "
                 "as wide as the model's generalisation; the generic engine reads the naive roofline's. The figures "
                 "held out of every fit count in the rows with each source held out; an engine with prompt figures "
                 "but no first-token figure reads its prefill band for its first token."),
        columns=(Column("category"), Column("engine"), Column("each figure estimated with"),
                 Column("figures", align="r"), Column("low", _factor, "r"), Column("high", _factor, "r")),
        rows=rows, assumptions=(METHOD, "generated into calculators/catalog/speed_error_bands.py by "
                                        "scripts/score_generalisation.py --write-bands"))


TABLES: dict[str, TableFunction] = declared_tables(globals())
