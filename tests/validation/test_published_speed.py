"""The published speed figures: every record cited, complete and consistent with the catalogs.

The figures themselves are quoted from their documents (each record's ``url``); the
checks here are on the data: required fields, one citation per source, known ids,
positive values, parseable dates, and the project's own H100 runs equal to the copy of
the measurement file they were taken from.
"""

from __future__ import annotations

import json
import re
from datetime import date
from pathlib import Path

import pytest

from calculators.catalog.engines import engine_ids
from calculators.catalog.gpus import get_gpu
from calculators.catalog.models import get_model
from calculators.memory.inference import InferenceRequest
from calculators.speed_accuracy.data import (
    CATEGORIES,
    DEFAULT_DIRECTORY,
    METRICS,
    REQUIRED,
    UNITS,
    load_figures,
    pending,
    scored,
)
from calculators.speed_accuracy.pending import pending_reason

FIGURES = load_figures()
IDS = [str(f["id"]) for f in FIGURES]
H100_CASES = Path(__file__).resolve().parents[1] / "data" / "measurements_cuda" / "h100-sxm" / "cases.jsonl"


#: Catalog ids another change adds (GPU records of the gpus2026 branch, weight formats of quant-encoders): a figure
#: may name one before its record lands, and stays pending (calculators.speed_accuracy.pending) until it does.
ANNOUNCED_GPUS = frozenset({"gb200", "mi325x", "mi355x", "h20", "rtx-pro-6000-server", "m3-ultra", "m4-pro", "a10g",
                            "l40", "h100-nvl", "a100-80gb-pcie"})
ANNOUNCED_FORMATS = frozenset({"mxfp4", "nvfp4"})


def _announced(reason: str) -> bool:
    """A pending reason the catalog will answer: an announced GPU or format, or a dense rate a GPU record lacks."""
    return (any(reason == f"gpu {gpu!r} is not in the catalog yet" for gpu in ANNOUNCED_GPUS)
            or any(reason == f"weight format {fmt!r} is not in the catalog yet" for fmt in ANNOUNCED_FORMATS)
            or "has no published dense" in reason)


#: The training half's files (calculators.speed_accuracy.training reads them; tests/validation/test_speed_training.py).
TRAINING_FILES = ("training", "collectives")


def test_one_file_per_category_and_ids_unique() -> None:
    assert sorted(p.stem for p in DEFAULT_DIRECTORY.glob("*.jsonl")) == sorted((*CATEGORIES, *TRAINING_FILES))
    assert len(IDS) == len(set(IDS))
    for path in (DEFAULT_DIRECTORY / f"{category}.jsonl" for category in CATEGORIES):
        for line in path.read_text(encoding="utf-8").splitlines():
            assert json.loads(line)["category"] == path.stem


@pytest.mark.parametrize("figure", FIGURES, ids=IDS)
def test_record_is_complete_and_known(figure: dict[str, object]) -> None:
    missing = [key for key in REQUIRED if figure.get(key) in (None, "")]
    assert not missing, missing
    assert figure["metric"] in METRICS and figure["unit"] in UNITS
    assert float(figure["measured"]) > 0  # type: ignore[arg-type]
    # An as-of date is the day the figure was read: never after today (111 records once said a day ahead).
    assert date.fromisoformat(str(figure["as_of"])) <= date.today()
    assert re.match(r"https://|tests/data/", str(figure["url"])), figure["url"]
    assert figure["engine"] in engine_ids()
    reason = pending_reason(figure)
    if reason:  # names a part the catalog will hold (checked below); nothing else to resolve yet
        assert _announced(reason), reason
        return
    get_gpu(str(figure["gpu"]))
    get_model(str(figure["model"]))
    InferenceRequest.of(weights=str(figure["weights"]), kv_cache=str(figure.get("kv_cache") or "bf16"))
    assert int(figure["tensor_parallel"]) >= 1 and int(figure["batch"]) >= 1  # type: ignore[call-overload]
    if figure["metric"] not in ("decode_rate", "decode_step_time"):
        assert figure["input_tokens"], "a prefill, first-token or batch figure states its prompt length"
    if figure["metric"] in ("output_rate", "output_rate_per_gpu", "batch_latency"):
        assert figure["output_tokens"], "a throughput figure states its generated length"
    if figure.get("excluded"):
        assert len(str(figure["excluded"])) > 20, "an excluded figure says why"


def test_one_citation_and_one_engine_per_source() -> None:
    by_source: dict[str, set[tuple[str, str]]] = {}
    engines: dict[str, set[str]] = {}
    for figure in FIGURES:
        by_source.setdefault(str(figure["source_id"]), set()).add((str(figure["title"]), str(figure["as_of"])))
        engines.setdefault(str(figure["source_id"]), set()).add(str(figure["engine"]))
    assert all(len(titles) == 1 for titles in by_source.values()), by_source
    # The leave-one-source-out scorer refits one engine per left-out source.
    assert all(len(names) == 1 for names in engines.values()), engines


def test_pending_figures_wait_only_for_announced_catalog_entries() -> None:
    # A typo in a GPU, model or format id would silently drop a figure from the scores: only the ids another
    # change is adding, or a dense rate a GPU record lacks, may keep a figure pending.
    # Since the GPUs they waited for (M3 Ultra, GB200, the M4 Max's rate) are catalogued, nothing waits.
    waiting = pending(FIGURES)
    assert all(_announced(reason) for _figure, reason in waiting), [r for _f, r in waiting if not _announced(r)]
    assert not waiting, [reason for _figure, reason in waiting]


def test_every_scored_category_has_ten_figures_from_two_sources() -> None:
    for category in CATEGORIES:
        figures = [f for f in scored(FIGURES) if f["category"] == category]
        assert len(figures) >= 10, category
        assert len({f["source_id"] for f in figures}) >= 2, category


def test_at_least_five_engines_and_a_hundred_figures() -> None:
    assert len(FIGURES) >= 100
    assert {str(f["engine"]) for f in FIGURES} >= {"transformers", "vllm", "tensorrt-llm", "llama.cpp"}


def test_h100_runs_equal_the_measurement_file() -> None:
    # Source: tests/data/measurements_cuda/h100-sxm/cases.jsonl (a copy of shared/measurements/h100).
    names = {"llama3-8b": "llama-3-8b", "llama3.2-1b": "llama-3.2-1b", "qwen2.5-0.5b": "qwen2.5-0.5b"}
    cases = [json.loads(line) for line in H100_CASES.read_text(encoding="utf-8").splitlines() if line.strip()]
    runs = {(names[c["model"]], c["attention"], c["batch"]): c for c in cases if c.get("kind") == "infer"}
    ours = [f for f in FIGURES if f["source_id"] == "h100-eager-transformers"]
    assert len(ours) == 2 * len(runs) == 24
    for figure in ours:
        settings = figure["settings"]
        assert isinstance(settings, dict)
        run = runs[(str(figure["model"]), settings["attn_implementation"], figure["batch"])]
        field = "decode_step_s" if "decode" in str(figure["metric"]) else "prefill_s"
        assert figure["measured"] == run[field] and figure["unit"] == "s" and figure["input_tokens"] == run["seq"]


def test_tensorrt_llm_figures_of_the_performance_page_are_in_the_dataset() -> None:
    # calculators.performance.published quotes the same document (TensorRT-LLM docs/source/performance.md).
    from calculators.performance.published import DECODE_THROUGHPUT, FIRST_TOKEN_LATENCY

    trt = [f for f in FIGURES if f["source_id"] == "trtllm-performance-md"]
    for r in DECODE_THROUGHPUT:
        assert any(f["model"] == r.model_id and f["gpu"] == r.gpu_id and f["batch"] == r.batch
                   and f["input_tokens"] == r.input_tokens and f["output_tokens"] == r.output_tokens
                   and f["measured"] == r.output_tokens_per_s_per_gpu for f in trt), r
    for t in FIRST_TOKEN_LATENCY:
        assert any(f["model"] == t.model_id and f["gpu"] == t.gpu_id and f["input_tokens"] == t.input_tokens
                   and f["metric"] == "ttft" and f["measured"] == pytest.approx(t.latency_s * 1000) for f in trt), t
