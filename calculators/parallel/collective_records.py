"""The model's bus bandwidth for a published nccl-tests record: every collective the records hold, each timed
as the answers time it (rings, trees and NVLS by :mod:`calculators.parallel.collective_time`; all-to-all as grouped
sends and receives by :mod:`calculators.parallel.all_to_all`). The one entry the speed-accuracy scoring and the
interconnect page's validation table call, above both timing modules.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from calculators.parallel.all_to_all import record_all_to_all_bus_bytes_per_s
from calculators.parallel.collective_time import record_collective_cost
from calculators.parallel.collectives import bus_bandwidth_bytes_per_s

__all__ = ["record_bus_bandwidth_bytes_per_s"]


def record_bus_bandwidth_bytes_per_s(record: Mapping[str, Any]) -> float:
    """The model's busbw for a collectives record, bytes/s.

    Formula: the record's :func:`record_collective_cost`
    (:mod:`calculators.parallel.collective_time`), the one timing the
    answers' training step uses too: its large-message busbw, or, where the record states its message size,
    nccl-tests' busbw of the modelled time ``calls x fixed + bus_factor x bytes / busbw`` (a ring's fixed cost per
    step measured in a node, NCCL's model across nodes; NCCL's NVLSTree for an all-reduce over two NVLink SHARP
    nodes, :func:`~calculators.parallel.links.nvls_tree_applies`), so a message pays its fixed costs. An
    ``"all-to-all"`` record is timed as NCCL runs it, grouped sends and receives
    (:func:`calculators.parallel.all_to_all.record_all_to_all_bus_bytes_per_s`).

    >>> record = {"link": "pcie4", "collective": "all-reduce", "gpus": 4}
    >>> record_bus_bandwidth_bytes_per_s(record) / 1e9
    24.0
    >>> round(record_bus_bandwidth_bytes_per_s({**record, "message_bytes": 2**20}) / 1e9, 1)  # 6 steps x 3.4 us
    18.3
    """
    if record.get("collective") == "all-to-all":  # grouped sends and receives, not a ring or tree
        return record_all_to_all_bus_bytes_per_s(record)
    cost = record_collective_cost(record)
    size = record.get("message_bytes")
    if not size:
        return cost.bus_bytes_per_s
    return bus_bandwidth_bytes_per_s(cost.collective, float(size), gpus=cost.gpus, time_s=cost.time_s(float(size)))
