"""The job planner composes the detailed calculators: its verdict, time and cost are theirs for the same job.

Every expected value here is a published result of another calculator (the fit, inference-speed,
training-time and cost-breakeven answers for the same job), or a one-line derivation from one
(time = tokens / the speed calculator's output tokens/s; cost = GPU-hours x the cost
calculator's price per GPU-hour). The two questions of issue #27 are the first jobs.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, urlsplit

import pytest

from calculators import cli
from calculators.jobs.plan_links import HOMES, plan_links
from calculators.jobs.registry import get_calculator

ROOT = Path(__file__).resolve().parents[2]
#: Issue #27's first question, as the planner and the fit calculator take it.
Q1 = {"model": "llama-3.1-70b", "gpu": "rtx-4090", "gpus": "2", "weights": "int4", "context": "8192"}
#: Issue #27's second question (QLoRA on one 24 GB card, 1B tokens), with the checkpointing that makes it fit.
Q2 = {"model": "qwen2.5-7b", "gpu": "rtx-4090", "job": "qlora", "tokens": "1B", "context": "2048",
      "grad_checkpointing": "true"}
#: The same training job as the fit and training-time forms take it.
Q2_FIT = {"model": "qwen2.5-7b", "gpu": "rtx-4090", "job": "training", "method": "qlora", "seq": "2048",
          "grad_checkpointing": "true", "gpus": "1", "zero": "0", "batch": "1"}
Q2_TRAIN = {"model": "qwen2.5-7b", "gpu": "rtx-4090", "tokens": "1B", "method": "qlora", "seq": "2048",
            "grad_checkpointing": "true", "gpus": "1", "zero": "0", "batch": "1"}


def plan(raw: dict[str, str]) -> Any:
    return get_calculator("plan").answer(raw)


def _placement(answer: dict[str, Any]) -> tuple[Any, ...]:
    return (answer["gpu"], answer["gpus"], answer["verdict"], answer["margin_bytes"], answer["gpus_needed_tight"],
            answer["gpus_needed"])


def test_q1_verdict_is_the_fit_calculators_and_the_speed_calculators() -> None:
    planned = plan(Q1)
    fit = get_calculator("fit").answer({**Q1, "job": "inference"})
    speed = get_calculator("inference-speed").answer(Q1)
    assert _placement(planned.data["answer"]) == _placement(fit.data["answer"]) == _placement(speed.data["answer"])
    assert planned.data["answer"]["verdict"] == "tight"  # the issue: 2x RTX 4090 is tight, 3 fit
    assert planned.report.headline == fit.report.headline
    # not a clean fit: the verdict first, then what the fit calculator says would make it fit
    assert planned.data["answer"]["advice"] == fit.data["answer"]["advice"] != []
    first = [block.text for block in planned.report.blocks[:2]]
    assert first[0].startswith("The speed, time and cost below are for a job that may not run")
    assert first[1] == "Single changes that make it fit: " + "; ".join(fit.data["answer"]["advice"]) + "."


def test_q1_speed_and_time_are_the_speed_calculators() -> None:
    planned = plan({**Q1, "tokens": "10M"})
    speed = get_calculator("inference-speed").answer(Q1).data
    assert planned.data["speed"]["decode_tokens_per_s"] == speed["decode_tokens_per_s"]
    assert planned.data["speed"]["time_to_first_token_s"] == speed["time_to_first_token_s"]
    # back-to-back static batches: time = tokens / the output rate over whole requests
    assert planned.data["time"]["time_s"] == pytest.approx(10**7 / speed["output_tokens_per_s"], rel=1e-12)
    assert planned.data["time"]["gpu_hours"] == pytest.approx(2 * planned.data["time"]["time_s"] / 3600, rel=1e-12)


def test_q2_verdict_and_time_are_fit_and_train_time() -> None:
    planned = plan(Q2)
    fit = get_calculator("fit").answer(Q2_FIT).data["answer"]
    train = get_calculator("training-time").answer(Q2_TRAIN).data
    assert _placement(planned.data["answer"]) == _placement(fit) == _placement(train["answer"])
    assert planned.data["answer"]["verdict"] == "fits"
    assert planned.data["time"]["time_s"] == train["time_s"]
    assert planned.data["time"]["gpu_hours"] == train["gpu_hours"]
    assert planned.data["speed"]["tokens_per_s"] == train["tokens_per_s"]
    low, high = planned.data["time"]["time_s_band"]  # the training-time answer's own band, applied to its time
    band = train["error_band"]
    assert (low, high) == pytest.approx((train["time_s"] * (1 + band["low"]), train["time_s"] * (1 + band["high"])))


def test_q2_without_checkpointing_says_so_first_with_the_fit_advice() -> None:
    planned = plan({**Q2, "grad_checkpointing": "false", "context": "4096"})
    fit = get_calculator("fit").answer({**Q2_FIT, "grad_checkpointing": "false", "seq": "4096"}).data["answer"]
    assert planned.report.verdict == "does not fit"
    assert planned.data["answer"]["advice"] == fit["advice"]
    assert any(line.startswith("gradient checkpointing: ") for line in fit["advice"])
    assert planned.text.splitlines()[1].startswith("The speed, time and cost below are for a job that cannot run")


def test_cost_is_the_cost_calculators_price_of_the_same_run() -> None:
    # cost-breakeven prices training_time's run of the model on one GPU with the engine's defaults
    # (full training, sequence 2048, micro-batch 1): the same job planned costs the same on both sides.
    job = {"model": "llama-3.2-1b", "gpu": "rtx-4090", "tokens": "2B"}
    priced = get_calculator("cost-breakeven").answer(job).data
    planned = plan({**job, "job": "full", "context": "2048"}).data["cost"]
    assert planned["cloud_usd"] == pytest.approx(priced["training_run_usd"]["cloud"], rel=1e-9)
    assert planned["local_usd"] == pytest.approx(priced["training_run_usd"]["local"], rel=1e-9)
    assert planned["cloud_usd_per_gpu_hour"] == priced["cloud_usd_per_gpu_hour"]


def test_a_gpu_without_a_list_price_has_a_cloud_cost_and_names_the_missing_input() -> None:
    planned = plan({"model": "llama-3-8b", "gpu": "h100-sxm", "job": "lora", "tokens": "1B"}).data["cost"]
    cost = get_calculator("cost-breakeven").answer({"gpu": "h100-sxm", "purchase_usd": "30000"}).data
    assert planned["cloud_usd_per_gpu_hour"] == cost["cloud_usd_per_gpu_hour"]
    assert planned["local_usd"] is None and planned["cloud_usd"] is not None
    assert planned["unknown"][0].startswith("local: a purchase price in USD")


def test_your_own_gpu_is_priced_only_as_given() -> None:
    own = {"gpu": "custom", "gpu_memory_gb": "48", "gpu_bandwidth_gbps": "864", "gpu_bf16_tflops": "362"}
    unpriced = plan({"model": "llama-3-8b", **own}).data["cost"]
    assert unpriced["cloud_usd"] is None and unpriced["local_usd"] is None and len(unpriced["unknown"]) == 2
    priced = plan({"model": "llama-3-8b", **own, "cloud_usd_per_gpu_hour": "1.5"}).data
    assert priced["cost"]["cloud_usd"] == pytest.approx(priced["time"]["gpu_hours"] * 1.5, rel=1e-9)


def test_pretraining_is_sized_as_full_training() -> None:
    full, pre = plan({**Q2, "job": "full"}).data, plan({**Q2, "job": "pretrain"}).data
    assert (full["answer"], full["time"], full["cost"]) == (pre["answer"], pre["time"], pre["cost"])


def test_the_command_line_prints_the_widgets_answer() -> None:
    data, text = cli.run(["plan", "--model", "llama-3.1-70b", "--gpu", "rtx-4090", "--gpus", "2", "--weights", "int4",
                          "--context", "8192", "--json"])
    assert data == plan(Q1).data
    assert cli.run(["plan", "--model", "qwen2.5-7b", "--gpu", "rtx-4090", "--job", "qlora", "--tokens", "1B",
                    "--context", "2048", "--grad-checkpointing"])[1].splitlines()[0] == plan(Q2).report.headline


# --------------------------------------------------------------------------- links between the calculators
def _markers(page: str) -> set[str]:
    """The calculators whose widget markers the page at site path ``page`` holds."""
    path = ROOT / "docs" / page / "index.md"
    if not path.exists():
        path = ROOT / "docs" / f"{page.rstrip('/')}.md"
    return set(re.findall(r"^<!-- widget: ([a-z0-9-]+)", path.read_text(encoding="utf-8"), flags=re.M))


@pytest.mark.parametrize("calculator", sorted(HOMES))
def test_each_linked_calculator_is_on_its_home_page(calculator: str) -> None:
    assert calculator in _markers(HOMES[calculator])


def _followed(href: str) -> tuple[str, dict[str, str]]:
    """The calculator a link addresses and the form values it carries."""
    pairs = parse_qsl(urlsplit(href).query)
    names = {key.split(".", 1)[0] for key, _ in pairs}
    assert len(names) == 1
    return names.pop(), {key.split(".", 1)[1]: value for key, value in pairs}


@pytest.mark.parametrize("raw", [Q1, Q2], ids=["q1", "q2"])
def test_the_planners_links_carry_the_same_job(raw: dict[str, str]) -> None:
    planned = plan(raw)
    links = plan_links("plan", planned.values)
    assert links and all(f'data-site-href="{href.replace("&", "&amp;")}"' in planned.html for _, href in links)
    for _, href in links:
        name, values = _followed(href)
        answer = get_calculator(name).answer(values).data
        if name == "training-time":
            assert answer["time_s"] == planned.data["time"]["time_s"]
        if name in ("fit", "inference-speed", "training-time"):
            assert _placement(answer["answer"]) == _placement(planned.data["answer"])


@pytest.mark.parametrize(("name", "raw"), [("fit", {**Q1, "job": "inference"}), ("fit", Q2_FIT),
                                           ("training-time", Q2_TRAIN)])
def test_plan_this_job_carries_the_same_job(name: str, raw: dict[str, str]) -> None:
    answer = get_calculator(name).answer(raw)
    (text, href), = plan_links(name, answer.values)
    assert text.startswith("Plan this job") and "mlhw-links" in answer.html and "mlhw-links" not in answer.text
    target, values = _followed(href)
    planned = plan(values)
    assert target == "plan"
    assert _placement(planned.data["answer"]) == _placement(answer.data["answer"])


def test_a_custom_model_gets_no_link() -> None:
    assert plan_links("fit", {"model": "custom", "gpu": "rtx-4090"}) == ()
