"""Links between the job planner and the detailed calculators, each carrying the job's inputs in its address.

A widget's inputs live in its page's query string (``docs/assets/widgets.js``); a key may name a
calculator instead of one widget (``?plan.model=llama-3.1-70b``: the first ``plan`` widget of the
page), so a link needs to know only the page that holds the calculator (:data:`HOMES`, checked
against the pages' widget markers by ``tests/engine/test_plan.py``). The web face draws the links
under a result (:func:`links_html`); the address is relative to the site's root
(``data-site-href``), which the build and the page's script turn into a link from the page.

>>> values = {"model": "llama-3.1-70b", "gpu": "rtx-4090", "gpus": 2, "job": "inference", "weights": "int4",
...           "kv_cache": "bf16", "context": 8192, "batch": 1, "new_tokens": 256}
>>> text, href = plan_links("fit", values)[0]
>>> text, href.split("&")[:3]
('Plan this job: speed, time and cost', ['calculators/?plan.model=llama-3.1-70b', 'plan.gpu=rtx-4090', 'plan.gpus=2'])
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from html import escape
from typing import Any
from urllib.parse import quote

#: The page (relative to the site's root) whose widget each linked calculator is.
HOMES = {"plan": "calculators/", "fit": "calculators/fit/", "inference-speed": "performance/",
         "training-time": "performance/training-time/", "cost-breakeven": "cost/"}
#: The GPU and model choices a link cannot carry: a config.json, a custom GPU's or a Mac's numbers.
NOT_CARRIED = ("custom", "mac")
#: The planner's training jobs and the fit and training-time calculators' method.
_METHOD_OF_JOB = {"full": "full", "lora": "lora", "qlora": "qlora", "pretrain": "full"}


def _text(value: Any) -> str:
    """A checked value as the form spells it."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def link(calculator: str, inputs: Mapping[str, Any]) -> str:
    """The site-relative address of ``calculator``'s page with ``inputs`` for its first widget there."""
    query = "&".join(f"{quote(calculator)}.{quote(name)}={quote(_text(value), safe='')}"
                     for name, value in inputs.items())
    return f"{HOMES[calculator]}?{query}"


#: Inputs of a training-time job the planner does not take (it runs data parallel only): a job with any above 1
#: gets no link.
MODEL_PARALLEL = ("tensor_parallel", "pipeline_parallel", "expert_parallel")


def _carried(values: Mapping[str, Any]) -> bool:
    """Whether the planner can take this job: a catalog model and GPU, data parallel only."""
    return (str(values.get("model")) not in NOT_CARRIED and str(values.get("gpu")) not in NOT_CARRIED
            and all(int(values.get(name) or 1) == 1 for name in MODEL_PARALLEL))


def _pick(values: Mapping[str, Any], names: Sequence[str]) -> dict[str, Any]:
    return {name: values[name] for name in names if name in values}


def to_plan(calculator: str, values: Mapping[str, Any]) -> dict[str, Any]:
    """The planner's inputs for a job of the fit or training-time calculator."""
    job = {"model": values["model"], "gpu": values["gpu"], "gpus": values["gpus"]}
    if calculator == "fit" and values.get("job") == "inference":
        new = {"new_tokens": values["new_tokens"]} if int(values.get("new_tokens", 0)) > 0 else {}
        return {**job, "job": "inference", **_pick(values, ("weights", "kv_cache", "context", "batch")), **new}
    trained = {**job, "job": values["method"], "context": values["seq"], "batch": values["batch"],
               "grad_checkpointing": values["grad_checkpointing"], "zero": values["zero"]}
    return {**trained, **_pick(values, ("tokens",))}


def from_plan(values: Mapping[str, Any]) -> list[tuple[str, str, dict[str, Any]]]:
    """The detailed calculators of a planned job: (link text, calculator, its inputs)."""
    job = {"model": values["model"], "gpu": values["gpu"], "gpus": values["gpus"]}
    prices = {name: values[name] for name in ("cloud_usd_per_gpu_hour", "purchase_usd")
              if not isinstance(values.get(name), str) and float(values.get(name) or 0) > 0}
    cost = {"model": values["model"], "gpu": values["gpu"], **prices,
            **_pick(values, ("utilization", "years"))}
    if values["job"] == "inference":
        served = _pick(values, ("weights", "kv_cache", "context", "batch", "new_tokens"))
        return [("Memory on every GPU (fit)", "fit", {**job, "job": "inference", **served}),
                ("Speed by batch (inference speed)", "inference-speed",
                 {**job, **served, **_pick(values, ("engine",))}),
                ("Local or cloud (cost)", "cost-breakeven", cost)]
    method = _METHOD_OF_JOB[str(values["job"])]
    trained = {"batch": values["batch"], "grad_checkpointing": values["grad_checkpointing"], "zero": values["zero"]}
    return [("Memory on every GPU (fit)", "fit", {**job, "job": "training", "method": method, "seq": values["context"],
                                                   **trained}),
            ("Time by GPU count (training time)", "training-time",
             {**job, "tokens": values["tokens"], "method": method, "seq": values["context"], **trained}),
            ("Local or cloud (cost)", "cost-breakeven", cost)]


def plan_links(calculator: str, values: Mapping[str, Any]) -> tuple[tuple[str, str], ...]:
    """The links under ``calculator``'s result: (text, site-relative address); none for a custom model or GPU."""
    if not _carried(values):
        return ()
    if calculator == "plan":
        return tuple((text, link(name, inputs)) for text, name, inputs in from_plan(values))
    return (("Plan this job: speed, time and cost", link("plan", to_plan(calculator, values))),)


def links_html(links: Sequence[tuple[str, str]]) -> str:
    """The links as the web face draws them under a result ('' when none); the page resolves ``data-site-href``.

    >>> links_html([("Plan this job", "calculators/?plan.gpus=2")])
    '<nav class="mlhw-links" aria-label="Related calculators"><a data-site-href="calculators/?plan.gpus=2">Plan this job</a></nav>'
    """
    if not links:
        return ""
    return ('<nav class="mlhw-links" aria-label="Related calculators">'
            + " ".join(f'<a data-site-href="{escape(href)}">{escape(text)}</a>' for text, href in links) + "</nav>")
