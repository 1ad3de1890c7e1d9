"""The rules-of-thumb audit (calculators/claims, docs/validation/claims.md).

Two tests read the source guides, which live outside the repository: set
SIZING_SOURCES_DIR, or keep them at ``<repo>/../shared/sources``; without them those two
tests are skipped (a fresh clone in CI). Every other test runs everywhere.
"""

from __future__ import annotations

import functools
import importlib
import os
import re
from pathlib import Path

import pytest

from calculators.claims import OUT_OF_SCOPE, SUBJECTS, VERDICTS, all_claims, evaluated
from calculators.claims.figures import SOURCES, model_state_bytes_per_param
from calculators.claims.record import (
    VERDICT_HOLDS,
    VERDICT_NOT_CHECKED,
    VERDICT_ONLY_WHEN,
    VERDICT_WRONG,
    Case,
    Claim,
    Figure,
    NotChecked,
    evaluate,
)
from calculators.doc_tables.claims import summary
from calculators.errors import InputError

ROOT = Path(__file__).resolve().parents[2]
SOURCES_DIR = Path(os.environ.get("SIZING_SOURCES_DIR") or ROOT.parent / "shared" / "sources")
needs_sources = pytest.mark.skipif(
    not SOURCES_DIR.is_dir(),
    reason=f"source guides not found at {SOURCES_DIR} (set SIZING_SOURCES_DIR); they are not in the repository")

#: A number next to a unit the audit is about: memory, bandwidth, parameters, ratios, money, power.
NUMERIC = re.compile(
    r"\$\s?\d"
    r"|\d(?:[\d,.]*\d)?\s?(?:[-–]\s?\d+(?:\.\d+)?\s?)?"
    r"(?:GB/s|TB/s|GiB|GB|MB|TB|bytes?|billion|percent|kWh|W|B|M|x|×|%)(?![a-z])")


def _norm(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


def _source_lines(name: str) -> list[str]:
    return (SOURCES_DIR / name).read_text(encoding="utf-8").splitlines()


CLAIMS = all_claims()


# --------------------------------------------------------------------------- against the guides
#: A ``<!-- quoted: ... -->`` marker that names one of the five source guides (not a paraphrase).
_GUIDE_MARKER = re.compile(r"<!-- quoted: (?![^>]*paraphrased)[^>]*(?:VRLA|Lyceum|PyTorch guide|practitioners)[^>]*-->",
                           re.IGNORECASE)
_QUOTATION = re.compile(r'"([^"]+)"')


def _guide_quotations() -> list[tuple[str, str]]:
    """(where, text) of every "..." quotation before a source-guide marker on a docs line."""
    found = []
    for page in sorted((ROOT / "docs").rglob("*.md")):
        for number, line in enumerate(page.read_text(encoding="utf-8").splitlines(), 1):
            marker = _GUIDE_MARKER.search(line)
            if marker:
                before = re.sub(r"<[^>]+>", "", line[:marker.start()])  # value markers and tags
                where = f"{page.relative_to(ROOT)}:{number}"
                found += [(where, text) for text in _QUOTATION.findall(before)]
    return found


@needs_sources
def test_quotations_of_the_guides_in_prose_are_verbatim() -> None:
    """Words in quotation marks attributed to a source guide are its words (or its title), not a paraphrase."""
    texts = [_norm((SOURCES_DIR / name).read_text(encoding="utf-8")) for name in SOURCES]
    titles = [title for _short, title in SOURCES.values()]
    quotations = _guide_quotations()
    assert len(quotations) >= 8  # the pages quote the guides in several places; none may be lost to a parse slip
    wrong = [f"{where}: \"{text}\"" for where, text in quotations
             if not any(_norm(text) in body for body in texts) and not any(text in title for title in titles)]
    assert not wrong, "not verbatim in any source guide:\n" + "\n".join(wrong)


@needs_sources
@pytest.mark.parametrize("claim", CLAIMS, ids=[c.id for c in CLAIMS])
def test_quote_is_verbatim_in_its_source(claim: Claim) -> None:
    text = _norm((SOURCES_DIR / claim.source).read_text(encoding="utf-8"))
    assert _norm(claim.quote) in text


@needs_sources
def test_out_of_scope_snippets_are_verbatim() -> None:
    for source, snippet, reason in OUT_OF_SCOPE:
        assert _norm(snippet) in _norm((SOURCES_DIR / source).read_text(encoding="utf-8")), snippet
        assert reason


@needs_sources
def test_every_numeric_line_is_covered() -> None:
    """Each line with a number next to a unit is quoted by a claim or listed as out of scope."""
    missing = []
    for source in SOURCES:
        covers = [_norm(c.quote) for c in CLAIMS if c.source == source]
        covers += [_norm(snippet) for s, snippet, _ in OUT_OF_SCOPE if s == source]
        for number, line in enumerate(_source_lines(source), 1):
            if NUMERIC.search(line) and not any(cover in _norm(line) for cover in covers):
                missing.append(f"{source}:{number}: {line[:100]}")
    assert not missing, "lines with a numeric claim and no record:\n" + "\n".join(missing)


def test_numeric_pattern_finds_glued_units() -> None:
    # The Lyceum summary table runs cells together ("2 bytesINT8"); the pattern must still see them.
    assert NUMERIC.search("Parameters x 2 bytesINT8 Inference")
    assert NUMERIC.search("60–80GB") and NUMERIC.search("$1-2/hr") and NUMERIC.search("8x7B")
    assert not NUMERIC.search("Section 2 of the paper")


# --------------------------------------------------------------------------- the records
def test_ids_unique_and_fields_filled() -> None:
    ids = [c.id for c in CLAIMS]
    assert len(ids) == len(set(ids))
    assert 60 <= len(CLAIMS) <= 150
    for claim in CLAIMS:
        assert re.fullmatch(r"[a-z0-9.-]+", claim.id), claim.id
        assert claim.source in SOURCES and claim.section and claim.quote and claim.conditions
        assert claim.subject in dict(SUBJECTS)
        assert claim.why or claim.not_checked, claim.id


def _resolve(dotted: str) -> object:
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            target: object = importlib.import_module(".".join(parts[:cut]))
        except ModuleNotFoundError:
            continue
        for attribute in parts[cut:]:
            target = getattr(target, attribute)
        return target
    raise AssertionError(dotted)


@pytest.mark.parametrize("item", evaluated(), ids=[e.claim.id for e in evaluated()])
def test_figure_names_a_real_function_and_page(item: object) -> None:
    from calculators.claims import Evaluated

    assert isinstance(item, Evaluated)
    if item.claim.evidence is not None:
        assert item.figure is None and item.reason and item.claim.evidence.url.startswith("https://")
        return
    if item.figure is None:
        assert item.verdict == VERDICT_NOT_CHECKED and item.reason
        return
    assert callable(_resolve(item.figure.function)) or isinstance(_resolve(item.figure.function),
                                                                  (property, functools.cached_property))
    assert (ROOT / "docs" / item.figure.page).is_file()
    assert item.figure.kind in ("derived", "spec", "measured")
    assert all(case.value == case.value for case in item.figure.cases), "no NaN"


def test_summary_counts_every_claim_once() -> None:
    rows = {row[0]: row for row in summary().rows}
    total = rows["all claims"]
    assert int(total[1]) == len(CLAIMS) == sum(int(cell) for cell in total[2:])
    assert [int(c) for c in total[2:]] == [sum(e.verdict == v for e in evaluated()) for v in VERDICTS]


# --------------------------------------------------------------------------- verdict logic
def _claim(values: tuple[float, ...], *, low: float = 10, high: float = 20, bound: str = "about",
           tolerance: float = 0.1) -> Claim:
    # Tests of the comparison set the tolerance directly; the records never do (test_one_tolerance_rule).
    return Claim(id="t", source="s.txt", section="s", quote="q", subject="training", conditions="c",
                 low=low, high=high, unit="GB", bound=bound, tolerance=tolerance, why="w",
                 figure=lambda: Figure(tuple(Case(f"case {v}", v) for v in values), "GB", "f", "p"))


@pytest.mark.parametrize(("values", "verdict", "holding"), [
    ((9.0, 15.0, 22.0), VERDICT_HOLDS, ("case 9.0", "case 15.0", "case 22.0")),  # 10 % widens 10-20 to 9-22
    ((8.9, 15.0), VERDICT_ONLY_WHEN, ("case 15.0",)),
    ((22.1,), VERDICT_WRONG, ()),
])
def test_verdict_from_cases(values: tuple[float, ...], verdict: str, holding: tuple[str, ...]) -> None:
    result = evaluate(_claim(values))
    assert result.verdict == verdict
    assert result.holding == holding


def test_only_when_text_names_the_cases() -> None:
    assert evaluate(_claim((5.0, 12.0))).verdict_text == "holds only when case 12.0 (wrong when case 5.0)"


def test_bounds() -> None:
    assert evaluate(_claim((1.0, 20.0), bound="at most", tolerance=0.0)).verdict == VERDICT_HOLDS
    assert evaluate(_claim((20.5,), bound="at most", tolerance=0.0)).verdict == VERDICT_WRONG
    assert evaluate(_claim((10.0, 500.0), bound="at least", tolerance=0.0)).verdict == VERDICT_HOLDS
    assert evaluate(_claim((9.9,), bound="at least", tolerance=0.0)).verdict == VERDICT_WRONG


def test_unknown_data_is_not_checked_not_guessed() -> None:
    def unpriced() -> Figure:
        raise NotChecked("no price")

    claim = Claim(id="t", source="s.txt", section="s", quote="q", subject="cost", conditions="c", low=1, high=2,
                  unit="USD", figure=unpriced, why="w")
    result = evaluate(claim)
    assert (result.verdict, result.reason, result.figure) == (VERDICT_NOT_CHECKED, "no price", None)


def test_bad_records_are_refused() -> None:
    with pytest.raises(InputError, match="subject"):
        Claim(id="t", source="s", section="s", quote="q", subject="gossip", conditions="c", low=1, high=1,
              unit="GB", figure=lambda: Figure((), "GB", "f", "p"), why="w")
    with pytest.raises(InputError, match="not_checked"):
        Claim(id="t", source="s", section="s", quote="q", subject="cost", conditions="c", low=None, high=None,
              unit="GB", figure=None, why="")
    with pytest.raises(InputError, match="bound"):
        _claim((1.0,), bound="roughly")


# --------------------------------------------------------------------------- hand-derived figures
def _figure(claim_id: str) -> dict[str, float]:
    item = next(e for e in evaluated() if e.claim.id == claim_id)
    assert item.figure is not None
    return {case.label: case.value for case in item.figure.cases}


def test_seven_billion_times_sixteen_bytes_is_112_gb() -> None:
    # ZeRO (Rajbhandari et al. 2020, sec. 3.1) model states with fp32 Adam: 4 weights + 4 gradients
    # + 4 + 4 moments = 16 B/param, so 7e9 x 16 B = 112e9 B, the low end of the vendor's FP32 row.
    assert 7e9 * model_state_bytes_per_param({"precision": "fp32", "optimizer": "adamw"}) == 112e9
    assert model_state_bytes_per_param({"precision": "bf16-mixed", "optimizer": "adamw"}) == 16
    # Pure bf16: 2 + 2 + (2 + 2) = 8 B/param, the top of "6-8x at mixed precision".
    assert model_state_bytes_per_param({"precision": "bf16", "optimizer": "adamw"}) == 8


def test_mixed_precision_is_not_6_to_8_bytes_per_param() -> None:
    # Derivation: mixed precision keeps fp32 master weights, so it needs at least fp32's 16 B/param.
    # Pure bf16 is a different recipe: shown for reference, it cannot rescue a claim about mixed precision.
    figure = _figure("vrla-6-8x-mixed")
    assert all(value >= 16 for label, value in figure.items() if "pure bf16" not in label)
    assert evaluate(next(c for c in CLAIMS if c.id == "vrla-6-8x-mixed")).verdict == VERDICT_WRONG


def test_pcie5_direction() -> None:
    # PCI-SIG PCIe 6.0 overview: a x16 PCIe 5.0 link is 128 GB/s counting both directions, 64 GB/s each way.
    figure = _figure("lyceum-pcie5-128")
    assert figure["both directions summed"] == 128
    assert figure["one direction (what a ring all-reduce uses)"] == 64


def test_nvlink4_is_900_both_directions() -> None:
    # NVIDIA H100 product page: NVLink 900 GB/s per GPU (bidirectional total), i.e. 450 GB/s each way.
    figure = _figure("lyceum-nvlink-900")
    assert figure["H100 SXM, both directions"] == 900 and figure["H100 SXM, one direction"] == 450


def test_mixtral_is_not_56b() -> None:
    # Mistral AI, "Mixtral of experts" (2023-12-11): 46.7B total parameters, 12.9B used per token.
    assert abs(_figure("lyceum-moe-56b-vram")["Mixtral 8x7B"] - 46.7) < 0.05
    assert abs(_figure("lyceum-moe-14b-active")["Mixtral 8x7B"] - 12.9) < 0.05


def test_llama3_8b_count() -> None:
    # Meta Llama 3 model card / Hugging Face page of Meta-Llama-3-8B: 8.03B parameters.
    assert abs(_figure("vrla-llama3-7b-params")["Llama 3 8B"] - 8.03) < 0.005


def test_recomputation_costs_a_third() -> None:
    # Forward 2N + backward 4N = 6N FLOP per token; recomputing the forward adds 2N: 8N / 6N = 4/3.
    assert abs(_figure("vrla-ckpt-30pct-compute")["Llama 3 8B"] - 100 / 3) < 0.5


def test_nf4_bytes_per_weight() -> None:
    # QLoRA (Dettmers et al. 2023, sec. 3): 4 bits + 0.127 bits of double-quantised scales per parameter.
    assert abs(_figure("vrla-4bit-0.5-bytes")["NF4 per quantised weight"] - 4.127 / 8) < 1e-3


def test_h100_bandwidth_spec() -> None:
    # NVIDIA H100 datasheet: SXM 3.35 TB/s (HBM3), PCIe 2.0 TB/s (HBM2e).
    figure = _figure("lyceum-h100-3.35tbs")
    assert figure == {"H100 SXM 80GB": 3.35, "H100 PCIe 80GB": 2.0}
