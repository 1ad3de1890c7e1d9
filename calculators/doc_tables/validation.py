"""Tables of the "How accurate are these numbers?" page (docs/validation/index.md) and of its page on memory on a
real GPU (docs/validation/real-gpu.md)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from calculators import accuracy, accuracy_real_gpu, peers
from calculators.measurements import DEFAULT_DIRECTORY, load_measurements
from calculators.tables import Table, TableFunction

PEER_ESTIMATES = Path(DEFAULT_DIRECTORY).parent / "peer_estimates.json"
REAL_GPU = Path(DEFAULT_DIRECTORY).parent / "measurements_cuda" / "h100-sxm"
REAL_GPU_ENVIRONMENT = ("one H100 80GB HBM3 (SXM), driver 580, CUDA 13.0, torch 2.11.0+cu130, transformers 5.17.0, "
                        "peft 0.21.0, default caching allocator")


def _real_gpu_table() -> Table:
    runs, configs = accuracy_real_gpu.load_runs(REAL_GPU)
    return accuracy_real_gpu.real_gpu_table(accuracy_real_gpu.score_runs(runs, configs), gpu="H100 80GB",
                                            environment=REAL_GPU_ENVIRONMENT)


def _boundaries_table() -> Table:
    return accuracy_real_gpu.boundaries_table(accuracy_real_gpu.load_boundaries(REAL_GPU), gpu="h100-sxm",
                                              gpu_name="H100 80GB")


def _replay_table() -> Table:
    document = json.loads((REAL_GPU / "allocator_replay.json").read_text(encoding="utf-8"))
    return accuracy_real_gpu.replay_table(document, gpu="H100 80GB")


def _simulated_boundaries_table() -> Table:
    document = json.loads((REAL_GPU / "simulated_boundaries.json").read_text(encoding="utf-8"))
    return accuracy_real_gpu.simulated_boundaries_table(document, gpu="h100-sxm", gpu_name="H100 80GB")


def _peer_estimates() -> dict[str, Any]:
    if not PEER_ESTIMATES.is_file():
        return {"estimates": {}}
    data: dict[str, Any] = json.loads(PEER_ESTIMATES.read_text(encoding="utf-8"))
    return data


TABLES: dict[str, TableFunction] = {
    "accuracy-summary": lambda: accuracy.summary_table(load_measurements()),
    "accuracy-cases": lambda: accuracy.cases_table(load_measurements()),
    "accuracy-peers": lambda: peers.peers_table(load_measurements(), _peer_estimates()),
    "accuracy-real-gpu": _real_gpu_table,
    "accuracy-real-gpu-boundaries": _boundaries_table,
    "accuracy-allocator-replay": _replay_table,
    "accuracy-simulated-boundaries": _simulated_boundaries_table,
}
