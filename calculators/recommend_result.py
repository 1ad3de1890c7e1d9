"""The result of :func:`calculators.recommend.recommend`: configurations, their order and why.

:func:`sort_key` orders configurations under an objective, :func:`why_sentence` says in one
sentence why each stands where it does, and :func:`objective_sentence` is the line shown
above the list.

>>> objective_sentence("fewest-gpus", "finetune", tight=2)
'Ranked by GPU count (fewest first), then cost, among configurations that fit with margin; 2 tight configurations are listed after, not ranked.'
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from calculators.catalog import prices
from calculators.fit import FITS
from calculators.units import GIB

@dataclass(frozen=True)
class Configuration:
    """One GPU configuration that fits the workload (or is tight).

    Attributes:
        gpu_id, gpu_name: the GPU. count: GPUs in the configuration.
        memory_per_gpu_bytes: per-GPU ``total_bytes`` of the memory estimate.
        capacity_bytes: one GPU's usable memory. headroom_bytes: capacity minus per-GPU total.
        tokens_per_s: serving: aggregate decode tokens/s; training: cluster tokens/s
            (estimates); ``None`` where the GPU has no published rate for training.
        days: training wall-clock days for the token budget (estimate); ``None`` for serving.
        usd_per_gpu_hour: the configuration's price per GPU-hour; ``None`` where unknown.
        usd_per_hour: ``count x usd_per_gpu_hour``.
        usd_per_million_tokens: serving cost per million generated tokens (cloud).
        usd_per_run: training cost of the run (cloud).
        meets_throughput, meets_budget: True when met or not set, False when missed, ``None``
            when a target is set but the value is unknown (no price, no published rate).
        price_basis: ``"offer"``, ``"per-GPU assumption"`` or ``"unknown"``
            (:class:`~calculators.catalog.prices.ConfigurationPrice`).
        tokens_per_s_per_sequence: serving: decode tokens/s each user sees (the latency objective).
        why: one sentence on why the configuration stands where it does.
    """

    gpu_id: str
    gpu_name: str
    count: int
    memory_per_gpu_bytes: int
    capacity_bytes: int
    tokens_per_s: float | None
    days: float | None
    usd_per_gpu_hour: float | None
    usd_per_million_tokens: float | None
    usd_per_run: float | None
    meets_throughput: bool | None
    meets_budget: bool | None
    notes: tuple[str, ...] = ()
    verdict: str = FITS
    uncertainty_bytes: int = 0
    price_basis: str = prices.UNKNOWN
    tokens_per_s_per_sequence: float | None = None
    why: str = ""

    @property
    def headroom_bytes(self) -> int:
        """Usable GPU memory left over per GPU, bytes (never negative for a kept configuration)."""
        return self.capacity_bytes - self.memory_per_gpu_bytes

    @property
    def usd_per_hour(self) -> float | None:
        """Cloud cost of the whole configuration per hour, USD."""
        return None if self.usd_per_gpu_hour is None else self.count * self.usd_per_gpu_hour

    @property
    def meets_targets(self) -> bool:
        """True when the throughput target and the budget are both known to be met (or not set)."""
        return self.meets_throughput is True and self.meets_budget is True

    @property
    def sort_cost(self) -> float | None:
        """The cost that orders rows: USD per million tokens (serving) or per run (training)."""
        return self.usd_per_million_tokens if self.usd_per_million_tokens is not None else self.usd_per_run

    @property
    def label(self) -> str:
        """``"8 x GeForce RTX 3090"``."""
        return f"{self.count} x {self.gpu_name}"

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict (bytes, tokens/s, days, USD)."""
        return {"gpu": self.gpu_id, "gpu_name": self.gpu_name, "count": self.count, "verdict": self.verdict,
                "memory_per_gpu_bytes": self.memory_per_gpu_bytes, "uncertainty_bytes": self.uncertainty_bytes,
                "capacity_bytes": self.capacity_bytes,
                "headroom_bytes": self.headroom_bytes, "tokens_per_s": self.tokens_per_s,
                "tokens_per_s_per_sequence": self.tokens_per_s_per_sequence, "days": self.days,
                "usd_per_gpu_hour": self.usd_per_gpu_hour, "usd_per_hour": self.usd_per_hour,
                "price_basis": self.price_basis,
                "usd_per_million_tokens": self.usd_per_million_tokens, "usd_per_run": self.usd_per_run,
                "meets_throughput": self.meets_throughput, "meets_budget": self.meets_budget,
                "meets_targets": self.meets_targets, "why": self.why, "notes": list(self.notes)}


@dataclass(frozen=True)
class Recommendation:
    """The ranked configurations that fit, the tight ones apart, what was skipped and every assumption."""

    model: str
    job: str
    method: str
    context: int
    batch: int
    tokens: int | None
    target_tokens_per_s: float | None
    budget_usd_per_hour: float | None
    rows: tuple[Configuration, ...]
    skipped: tuple[str, ...]
    assumptions: tuple[str, ...]
    unpriced: tuple[str, ...] = ()
    price_edition: str = prices.EDITION
    kv_cache: str | None = None  # serving only
    objective: str = "cost"
    tight_rows: tuple[Configuration, ...] = ()
    engine: str | None = None  # serving only

    @property
    def objective_text(self) -> str:
        """One sentence: what the list is ranked by, and among what."""
        return objective_sentence(self.objective, self.job, tight=len(self.tight_rows))

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict."""
        return {"model": self.model, "job": self.job, "method": self.method, "kv_cache": self.kv_cache,
                "engine": self.engine,
                "context": self.context,
                "batch": self.batch, "tokens": self.tokens, "target_tokens_per_s": self.target_tokens_per_s,
                "budget_usd_per_hour": self.budget_usd_per_hour, "price_edition": self.price_edition,
                "objective": self.objective, "objective_text": self.objective_text,
                "configurations": [row.to_dict() for row in self.rows],
                "tight_configurations": [row.to_dict() for row in self.tight_rows],
                "skipped": list(self.skipped), "unpriced": list(self.unpriced),
                "assumptions": list(self.assumptions)}

    @property
    def settings_text(self) -> str:
        """The method (and the KV-cache dtype and engine when serving), as the CLI and the widget show them."""
        return (self.method + (f", KV cache {self.kv_cache}" if self.kv_cache else "")
                + (f", engine {self.engine}" if self.engine else ""))


def objective_sentence(objective: str, job: str, *, tight: int = 0) -> str:
    """What a recommendation is ranked by, as the sentence shown above the list.

    >>> objective_sentence("latency", "serve")
    'Ranked by decode tokens/s per user (fastest first), among configurations that fit with margin.'
    """
    serve = job == "serve"
    text = {
        "cost": ("USD per million generated tokens" if serve else "USD per training run")
        + " (cloud on-demand, cheapest first; the price column says whether it is an offer of that size or a "
          "per-GPU assumption)",
        "latency": "decode tokens/s per user (fastest first)" if serve else "wall-clock days (shortest first)",
        "fewest-gpus": "GPU count (fewest first), then cost",
    }[objective]
    after = (f"; {tight} tight configuration{' is' if tight == 1 else 's are'} listed after, not ranked"
             if tight else "")
    return f"Ranked by {text}, among configurations that fit with margin{after}."


def sort_key(objective: str, job: str) -> Any:
    def cost_key(r: Configuration) -> tuple[bool, float]:
        return r.sort_cost is None, r.sort_cost or 0.0

    def key(r: Configuration) -> tuple[Any, ...]:
        if objective == "latency":
            speed_value = r.tokens_per_s_per_sequence if job == "serve" else (
                None if r.days is None else -r.days)
            return (not r.meets_targets, speed_value is None, -(speed_value or 0.0), *cost_key(r), r.count, r.gpu_id)
        if objective == "fewest-gpus":
            return (not r.meets_targets, r.count, *cost_key(r), r.gpu_id)
        return (not r.meets_targets, *cost_key(r), r.count, r.gpu_id)
    return key


def why_sentence(row: Configuration, first: Configuration | None, objective: str, job: str) -> str:
    """One sentence: the row's standing under the objective, its headroom and its price basis."""
    serve = job == "serve"
    unit = "per million tokens" if serve else "per run"
    cost_text = "cost unknown" if row.sort_cost is None else f"{row.sort_cost:,.2f} USD {unit}"
    if objective == "latency" and serve:
        lead = ("unknown per-user speed" if row.tokens_per_s_per_sequence is None
                else f"{row.tokens_per_s_per_sequence:,.0f} tokens/s per user")
    elif objective == "latency":
        lead = "unknown duration" if row.days is None else f"{row.days:,.2f} days"
    elif objective == "fewest-gpus":
        lead = f"{row.count} GPU{'s' if row.count > 1 else ''}"
    else:
        lead = cost_text
    if first is None:
        standing = "Ranked first"
    elif objective == "cost" and row.sort_cost and first.sort_cost:
        standing = f"{row.sort_cost / first.sort_cost:,.1f} x the first's cost"
    else:
        standing = "Ranked below the first"
    spare, band = row.headroom_bytes / GIB, row.uncertainty_bytes / GIB
    headroom = (f"{spare:,.1f} GiB to spare per GPU, above the {band:,.1f} GiB measured uncertainty"
                if row.verdict == FITS else f"only {spare:,.1f} GiB to spare per GPU, inside the {band:,.1f} GiB "
                                            "measured uncertainty")
    price = {prices.OFFER: f"priced from {'an' if row.count == 8 else 'a'} {row.count}-GPU offer",
             prices.PER_GPU_ASSUMPTION: "price a per-GPU assumption (no offer of that size)",
             prices.UNKNOWN: "no price in the catalog"}[row.price_basis]
    targets = "" if row.meets_targets else "; misses a stated target or budget (or it is unknown)"
    extra = f", {cost_text}" if objective != "cost" else ""
    return f"{standing}: {lead}{extra}, {headroom}; {price}{targets}."
