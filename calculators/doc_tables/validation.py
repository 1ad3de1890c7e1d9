"""Tables of the "How accurate are these numbers?" page (docs/validation/index.md)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from calculators import accuracy, peers
from calculators.measurements import DEFAULT_DIRECTORY, load_measurements
from calculators.tables import TableFunction

PEER_ESTIMATES = Path(DEFAULT_DIRECTORY).parent / "peer_estimates.json"


def _peer_estimates() -> dict[str, Any]:
    if not PEER_ESTIMATES.is_file():
        return {"estimates": {}}
    data: dict[str, Any] = json.loads(PEER_ESTIMATES.read_text(encoding="utf-8"))
    return data


TABLES: dict[str, TableFunction] = {
    "accuracy-summary": lambda: accuracy.summary_table(load_measurements()),
    "accuracy-cases": lambda: accuracy.cases_table(load_measurements()),
    "accuracy-peers": lambda: peers.peers_table(load_measurements(), _peer_estimates()),
}
