"""Score the memory calculators against measured peaks (the "How accurate?" page).

A measurement record (see ``scripts/measure_memory.py`` and ``tests/data/measurements``)
names a model config and the settings of a real PyTorch step, and the peak allocated
bytes it recorded. :func:`score` runs the calculator on the same inputs and reports the
signed relative error ``(estimate - measured) / measured``.

>>> record = {"id": "demo", "kind": "infer",
...     "model": {"name": "tiny", "config": {"model_type": "llama", "hidden_size": 64,
...         "num_hidden_layers": 2, "num_attention_heads": 4, "intermediate_size": 128,
...         "vocab_size": 100}},
...     "settings": {"weights": "fp32", "kv_cache": "fp32", "batch": 1, "context": 16,
...         "new_tokens": 0},
...     "measured": {"peak_allocated_bytes": 400000, "peak_phase": "prefill"}}
>>> result = score(record)
>>> result.case_id, result.kind
('demo', 'infer')
>>> summary([result]).count
1
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from calculators.columns import Column, gib_column
from calculators.encoder import encoder_from_config
from calculators.memory.encoder import encoder_inference_memory
from calculators.memory.inference import inference_memory
from calculators.memory.result import MemoryEstimate
from calculators.memory.training import training_memory
from calculators.model_config import spec_from_config
from calculators.tables import Table
from calculators.units import signed_error

TRAIN_KEYS = ("method", "precision", "optimizer", "batch", "seq", "grad_checkpointing", "attention",
              "lora_rank", "lora_targets", "base_dtype", "grad_accumulation")
INFER_KEYS = ("weights", "kv_cache", "batch", "context", "new_tokens", "attention")
EMBED_KEYS = ("weights", "batch", "seq", "attention")


@dataclass(frozen=True)
class CaseScore:
    """One measured case and the calculator's estimate of it."""

    case_id: str
    kind: str
    model: str
    label: str
    measured_bytes: int
    estimated_bytes: int
    measured_phase: str
    estimated_phase: str

    @property
    def relative_error(self) -> float:
        """Signed error (estimate - measured) / measured."""
        return (self.estimated_bytes - self.measured_bytes) / self.measured_bytes


@dataclass(frozen=True)
class ErrorSummary:
    """Distribution of absolute relative errors over a set of cases."""

    count: int
    median: float
    p95: float
    worst: float
    mean_signed: float


def _settings(record: Mapping[str, Any], keys: tuple[str, ...]) -> dict[str, Any]:
    settings = dict(record.get("settings", {}))
    if record.get("kind") == "train" and settings.get("method", "full") != "full":
        settings.setdefault("base_dtype", settings.get("weights"))
        if settings.get("base_dtype") is None:
            settings.pop("base_dtype", None)
    if settings.get("method", "full") == "full":
        settings.pop("base_dtype", None)
    return {key: settings[key] for key in keys if key in settings and settings[key] is not None}


def score(record: Mapping[str, Any]) -> CaseScore:
    """Run the calculator on one measurement record and pair it with the measured peak."""
    model = record["model"]
    kind = record["kind"]
    # The traces ran PyTorch's CPU kernels under FakeTensorMode: no CUDA workspaces, and
    # SDPA's CPU kernel (fp32 and grouped K/V alike), so the estimate is for device "cpu".
    if kind == "embed":  # an encoder forward (embedding, reranking)
        encoder = encoder_from_config(model["config"], name=model.get("name"))
        settings = _settings(record, EMBED_KEYS)
        return _score(record, kind, str(model.get("name", encoder.name)), settings,
                      encoder_inference_memory(encoder, **settings, device="cpu"))
    spec = spec_from_config(model["config"], name=model.get("name"))
    if kind == "train":
        settings = _settings(record, TRAIN_KEYS)
        estimate = training_memory(spec, **settings, device="cpu")
    else:
        settings = _settings(record, INFER_KEYS)
        estimate = inference_memory(spec, **settings, device="cpu")
    return _score(record, kind, str(model.get("name", spec.name)), settings, estimate)


def _score(record: Mapping[str, Any], kind: str, model: str, settings: Mapping[str, Any],
           estimate: MemoryEstimate) -> CaseScore:
    measured = record["measured"]
    return CaseScore(
        case_id=str(record["id"]),
        kind=kind,
        model=model,
        label=_label(kind, settings),
        measured_bytes=int(measured["peak_allocated_bytes"]),
        estimated_bytes=estimate.peak_allocated_bytes,
        measured_phase=str(measured.get("peak_phase", "")),
        estimated_phase=estimate.peak_phase,
    )


def _label(kind: str, settings: Mapping[str, Any]) -> str:
    if kind == "train":
        parts = [str(settings.get("method", "full")), str(settings.get("precision", "bf16-mixed")),
                 str(settings.get("optimizer", "adamw")), f"b{settings.get('batch', 1)}",
                 f"s{settings.get('seq', 2048)}"]
        if settings.get("grad_checkpointing"):
            parts.append("ckpt")
        if settings.get("attention", "sdpa") != "sdpa":
            parts.append(str(settings["attention"]))
        if settings.get("method", "full") != "full":
            targets = settings.get("lora_targets", ())
            parts.append(f"r{settings.get('lora_rank')}:{','.join(targets) if not isinstance(targets, str) else targets}")
        return " ".join(parts)
    if kind == "embed":
        return (f"{settings.get('weights', 'bf16')} b{settings.get('batch', 1)} x {settings.get('seq')} "
                f"{settings.get('attention', 'sdpa')}")
    return (f"{settings.get('weights', 'bf16')} kv {settings.get('kv_cache', 'bf16')} b{settings.get('batch', 1)} "
            f"ctx {settings.get('context')} +{settings.get('new_tokens', 0)}")


def _percentile(sorted_values: list[float], fraction: float) -> float:
    """Linear-interpolated percentile of an ascending list (numpy's default method)."""
    if not sorted_values:
        return math.nan
    position = (len(sorted_values) - 1) * fraction
    low = math.floor(position)
    high = min(low + 1, len(sorted_values) - 1)
    return sorted_values[low] + (sorted_values[high] - sorted_values[low]) * (position - low)


def summary(scores: Iterable[CaseScore]) -> ErrorSummary:
    """Median, 95th percentile and worst absolute relative error, and the mean signed error.

    >>> make = lambda e: CaseScore("c", "train", "m", "", 100, 100 + e, "", "")
    >>> s = summary([make(e) for e in (-3, 1, 2)])
    >>> s.median, s.worst
    (0.02, 0.03)
    """
    items = list(scores)
    errors = sorted(abs(item.relative_error) for item in items)
    signed = [item.relative_error for item in items]
    return ErrorSummary(
        count=len(items),
        median=_percentile(errors, 0.5),
        p95=_percentile(errors, 0.95),
        worst=errors[-1] if errors else math.nan,
        mean_signed=sum(signed) / len(signed) if signed else math.nan,
    )


# --------------------------------------------------------------------------- published tables
def _group(item: CaseScore, settings_method: str) -> str:
    if item.kind == "infer":
        return "inference"
    if item.kind == "embed":
        return "encoders (embedding)"
    return "full fine-tuning" if settings_method == "full" else "LoRA"


def grouped_scores(records: Iterable[Mapping[str, Any]]) -> dict[str, list[CaseScore]]:
    """Scores of the records, grouped as full fine-tuning / LoRA / inference / encoders."""
    groups: dict[str, list[CaseScore]] = {"full fine-tuning": [], "LoRA": [], "inference": [],
                                          "encoders (embedding)": []}
    for record in records:
        item = score(record)
        groups[_group(item, str(record.get("settings", {}).get("method", "full")))].append(item)
    return groups


def summary_table(records: Iterable[Mapping[str, Any]]) -> Table:
    """Table ``accuracy-summary``: error distribution per group of measured cases."""
    groups = grouped_scores(records)
    rows = []
    everything: list[CaseScore] = []
    for name, items in groups.items():
        if not items:
            continue
        everything += items
        rows.append(_summary_row(name, items))
    rows.append(_summary_row("all cases", everything))
    return Table.of(
        id="accuracy-summary",
        caption="Absolute error of peak_allocated_bytes against measured PyTorch peaks, by kind of job.",
        columns=(Column("cases"), Column("n", align="r"),
                 *(Column(name, "{:.2%}".format, "r") for name in ("median |error|", "95th pct |error|",
                                                                   "worst |error|")),
                 Column("mean signed error", signed_error, "r")),
        rows=rows,
        assumptions=("measurements: tests/data/measurements (fake-tensor traces of transformers steps)",),
    )


def _summary_row(name: str, items: list[CaseScore]) -> tuple[str, int, float, float, float, float]:
    stats = summary(items)
    return (name, stats.count, stats.median, stats.p95, stats.worst, stats.mean_signed)


def cases_table(records: Iterable[Mapping[str, Any]]) -> Table:
    """Table ``accuracy-cases``: every measured case, measured and estimated GiB, error."""
    items = sorted((score(record) for record in records), key=lambda s: (s.kind, s.model, s.case_id))
    rows = ((s.model, s.kind, s.label, s.measured_bytes, s.estimated_bytes, s.relative_error, s.measured_phase,
             s.estimated_phase) for s in items)
    return Table.of(
        id="accuracy-cases",
        caption="Every measured case: measured and estimated peak allocated memory (GiB = 2^30 bytes).",
        columns=(Column("model"), Column("kind"), Column("settings"), gib_column("measured GiB", 3),
                 gib_column("estimated GiB", 3), Column("error", signed_error, "r"), Column("measured peak phase"),
                 Column("estimated peak phase")),
        rows=rows,
        after=scatter_svg(items),
    )


def scatter_svg(items: Iterable[CaseScore], *, size: int = 360) -> str:
    """A log-log SVG scatter of estimated vs measured GiB with the y = x line and a ±10 % band.

    >>> "<svg" in scatter_svg([CaseScore("c", "train", "m", "", 2**30, 2**30, "", "")])
    True
    """
    points = [(s.measured_bytes / 2**30, s.estimated_bytes / 2**30, s.kind) for s in items]
    if not points:
        return ""
    low = min(min(m, e) for m, e, _ in points) / 1.5
    high = max(max(m, e) for m, e, _ in points) * 1.5
    pad = 40
    span = math.log10(high) - math.log10(low)

    def xy(value: float) -> float:
        return pad + (size - 2 * pad) * (math.log10(value) - math.log10(low)) / span

    def yy(value: float) -> float:
        return size - xy(value)

    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {size} {size}" width="{size}" height="{size}" '
             'role="img" aria-label="Estimated versus measured peak memory, log scale">',
             f'<rect x="{pad}" y="{pad}" width="{size - 2 * pad}" height="{size - 2 * pad}" fill="none" '
             'stroke="#999"/>']
    band = [(low, low * 1.1), (high / 1.1, high), (high, high / 1.1), (low * 1.1, low)]
    parts.append('<polygon fill="#4caf5022" points="' + " ".join(f"{xy(a):.1f},{yy(b):.1f}" for a, b in band) + '"/>')
    parts.append(f'<line x1="{xy(low):.1f}" y1="{yy(low):.1f}" x2="{xy(high):.1f}" y2="{yy(high):.1f}" '
                 'stroke="#4caf50"/>')
    colors = {"train": "#1565c0", "infer": "#e65100", "embed": "#6a1b9a"}
    for measured, estimated, kind in sorted(points):
        parts.append(f'<circle cx="{xy(measured):.1f}" cy="{yy(estimated):.1f}" r="3" fill="{colors[kind]}" '
                     'fill-opacity="0.7"/>')
    parts.append(f'<text x="{size / 2:.0f}" y="{size - 8}" font-size="12" text-anchor="middle">measured GiB '
                 '(log)</text>')
    parts.append(f'<text x="12" y="{size / 2:.0f}" font-size="12" text-anchor="middle" '
                 f'transform="rotate(-90 12 {size / 2:.0f})">estimated GiB (log)</text>')
    parts.append(f'<text x="{pad + 6}" y="{pad + 16}" font-size="11" fill="#1565c0">training</text>')
    parts.append(f'<text x="{pad + 6}" y="{pad + 30}" font-size="11" fill="#e65100">inference</text>')
    parts.append(f'<text x="{pad + 6}" y="{pad + 44}" font-size="11" fill="#6a1b9a">encoders (embedding)</text>')
    parts.append(f'<text x="{pad + 6}" y="{pad + 58}" font-size="11" fill="#4caf50">y = x, ±10 %</text>')
    parts.append("</svg>")
    return "".join(parts)
