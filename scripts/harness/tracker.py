"""The storage tracker (live tensor bytes at op granularity) and the recorder of per-phase peaks."""

from __future__ import annotations

import contextlib
import gc
import itertools
import subprocess
import weakref
from typing import Any, Iterator

ROUND = 512

#: When a list, every tracker appends its allocation order here: ``("alloc", serial, bytes)``,
#: ``("free", serial, 0)`` and ``("phase", 0, 0)`` at each phase start (what
#: ``scripts/replay_allocator.py`` replays through :mod:`calculators.memory.caching_allocator`).
event_log: list[tuple[str, int, int]] | None = None


def _round(n: int) -> int:
    return 0 if n <= 0 else ((n + ROUND - 1) // ROUND) * ROUND


def make_tracker_class():  # defined lazily so that importing this file needs no torch
    import torch
    from torch._subclasses.fake_tensor import FakeTensor
    from torch.utils._python_dispatch import TorchDispatchMode
    from torch.utils._pytree import tree_flatten

    aten = torch.ops.aten
    lift_ops = {aten.lift_fresh.default, aten.lift_fresh_copy.default}
    sdpa_names = ("scaled_dot_product", "flash_attention", "efficient_attention", "cudnn_attention")

    class StorageTracker(TorchDispatchMode):
        """Counts every live UntypedStorage once, rounded up to 512 B."""

        def __init__(self, only_device: str | None = None) -> None:
            super().__init__()
            self.only_device = only_device          # "cuda": ignore host tensors in a real GPU run
            self.live: dict[int, int] = {}          # serial -> rounded bytes
            self.by_id: dict[int, int] = {}         # id(storage) -> serial
            self.excluded_ids: set[int] = set()     # storages that would live on the host on CUDA
            self.total = 0
            self._serials = itertools.count()
            self.phase: str | None = None
            self.phase_peak = 0
            self.snapshot: dict[int, int] = {}
            self._pending = False
            self.cpu_scalar_rule = False            # active inside optimizer.step()
            self.fake_item_value = False            # answer .item() on fake tensors (Adafactor)
            self.op_counts: dict[str, int] = {}
            self.sdpa_calls: dict[str, int] = {}

        # -- registration --------------------------------------------------------------
        def register(self, t: "torch.Tensor", exclude: bool = False) -> None:
            if not isinstance(t, torch.Tensor) or t.is_sparse:
                return
            if self.only_device is not None and t.device.type != self.only_device:
                return
            try:
                st = t.untyped_storage()
            except Exception:  # pragma: no cover - tensors without storage
                return
            key = id(st)
            if key in self.by_id or key in self.excluded_ids:
                return
            if exclude:
                self.excluded_ids.add(key)
                weakref.finalize(st, self.excluded_ids.discard, key)
                return
            serial = next(self._serials)
            nbytes = _round(st.nbytes())
            self.by_id[key] = serial
            self.live[serial] = nbytes
            self.total += nbytes
            if event_log is not None:
                event_log.append(("alloc", serial, nbytes))
            weakref.finalize(st, self._free, key, serial)
            if self.total > self.phase_peak:
                self.phase_peak = self.total
                self._pending = True

        def register_weights(self, model: "torch.nn.Module") -> set[int]:
            """Register every parameter, then every buffer, of ``model``; the serials of their storages."""
            weights = list(itertools.chain(model.parameters(), model.buffers()))
            for t in weights:
                self.register(t)
            return {s for s in (self.serial_of(t) for t in weights) if s is not None}

        def serial_of(self, t: "torch.Tensor") -> int | None:
            try:
                return self.by_id.get(id(t.untyped_storage()))
            except Exception:
                return None

        def is_excluded(self, t: Any) -> bool:
            return isinstance(t, torch.Tensor) and id(t.untyped_storage()) in self.excluded_ids

        def _free(self, key: int, serial: int) -> None:
            if self._pending:
                self.snapshot = dict(self.live)
                self._pending = False
            self.by_id.pop(key, None)
            if event_log is not None and serial in self.live:
                event_log.append(("free", serial, 0))
            nbytes = self.live.pop(serial, 0)
            self.total -= nbytes

        # -- phases --------------------------------------------------------------------
        def start_phase(self, name: str) -> None:
            if event_log is not None:
                event_log.append(("phase", 0, 0))
            self.phase = name
            self.phase_peak = self.total
            self.snapshot = dict(self.live)
            self._pending = False

        def end_phase(self) -> tuple[int, dict[int, int]]:
            if self._pending:
                self.snapshot = dict(self.live)
                self._pending = False
            self.phase = None
            return self.phase_peak, self.snapshot

        # -- dispatch ------------------------------------------------------------------
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):  # type: ignore[override]
            kwargs = kwargs or {}
            if func is aten._local_scalar_dense.default and self.fake_item_value:
                a = args[0]
                if isinstance(a, FakeTensor):
                    return True if a.dtype == torch.bool else (1 if not a.is_floating_point() else 1.0)
            out = func(*args, **kwargs)
            name = func.__name__ if hasattr(func, "__name__") else str(func)
            if any(s in name for s in sdpa_names):
                bound = dict(kwargs)
                for a_schema, val in zip(func._schema.arguments, args):
                    bound[a_schema.name] = val
                flags = []
                if isinstance(bound.get("attn_mask", bound.get("attn_bias")), torch.Tensor):
                    flags.append("mask")
                if bound.get("is_causal") is True:
                    flags.append("causal")
                key = name + "".join("+" + f for f in flags)
                self.sdpa_calls[key] = self.sdpa_calls.get(key, 0) + 1
            flat_out, _ = tree_flatten(out)
            exclude = False
            if self.cpu_scalar_rule:
                if func in lift_ops:
                    exclude = True
                else:
                    ins = [a for a in tree_flatten((args, kwargs))[0] if isinstance(a, torch.Tensor)]
                    if ins and all(self.is_excluded(a) for a in ins):
                        exclude = True
            for t in flat_out:
                if isinstance(t, torch.Tensor):
                    self.register(t, exclude=exclude and t.numel() <= 1)
            return out

    return StorageTracker


def _nvidia_smi_used() -> int | None:
    try:
        out = subprocess.run(["nvidia-smi", "--query-gpu=memory.used", "--format=csv,noheader,nounits"],
                             capture_output=True, text=True, timeout=20)
        return int(out.stdout.strip().splitlines()[0]) * 1024 * 1024
    except Exception:
        return None


class Recorder:
    """Phase bookkeeping shared by the train and infer runners."""

    def __init__(self, tracker, device: str) -> None:
        self.t = tracker
        self.device = device
        self.phase_peaks: dict[str, int] = {}                 # max over steps
        self.phase_peak_steps: dict[str, dict[str, int]] = {}  # per step
        self.snapshots: dict[str, dict[int, int]] = {}
        self.boundaries: dict[str, int] = {}
        self.cuda_peaks: dict[str, dict[str, int]] = {}
        self.gc_freed = 0

    def boundary(self, name: str) -> None:
        before = self.t.total
        gc.collect()
        self.gc_freed += before - self.t.total
        self.boundaries[name] = self.t.total
        if self.device == "cuda":
            import torch
            torch.cuda.synchronize()
            self.boundaries[name + "@cuda_allocated"] = int(torch.cuda.memory_allocated())
            # what the allocator holds from the driver here: after "weights" it is the reserve the model's
            # construction leaves, a floor under the step's max_memory_reserved (issue #12)
            self.boundaries[name + "@cuda_reserved"] = int(torch.cuda.memory_reserved())

    @contextlib.contextmanager
    def phase(self, name: str, step: int | None = None) -> Iterator[None]:
        import torch
        gc.collect()
        if self.device == "cuda":
            torch.cuda.synchronize()
            torch.cuda.reset_peak_memory_stats()
        self.t.start_phase(name)
        gc_was = gc.isenabled()
        gc.disable()
        try:
            yield
        finally:
            if gc_was:
                gc.enable()
            peak, snap = self.t.end_phase()
            label = name if step is None else f"step{step}"
            self.phase_peak_steps.setdefault(label, {})[name] = peak
            if peak >= self.phase_peaks.get(name, -1):
                self.phase_peaks[name] = peak
                self.snapshots[name] = snap
            if self.device == "cuda":
                torch.cuda.synchronize()
                c = self.cuda_peaks.setdefault(name, {"max_memory_allocated": 0, "max_memory_reserved": 0})
                c["max_memory_allocated"] = max(c["max_memory_allocated"], int(torch.cuda.max_memory_allocated()))
                c["max_memory_reserved"] = max(c["max_memory_reserved"], int(torch.cuda.max_memory_reserved()))
                smi = _nvidia_smi_used()
                if smi is not None:
                    c["nvidia_smi_used"] = max(c.get("nvidia_smi_used", 0), smi)


def classify(snap: dict[int, int], sets: dict[str, set[int]]) -> dict[str, int]:
    out = {k: 0 for k in ("parameters", "gradients", "optimizer_states", "kv_cache",
                          "activations_and_temporaries")}
    for serial, nbytes in snap.items():
        for cat in ("parameters", "gradients", "optimizer_states", "kv_cache"):
            if serial in sets.get(cat, ()):
                out[cat] += nbytes
                break
        else:
            out["activations_and_temporaries"] += nbytes
    out["total"] = sum(snap.values())
    return out
