"""Serving under load: throughput and per-user latency of a continuously batched server (estimate).

A server with continuous batching (Orca's iteration-level scheduling; vLLM, SGLang,
TensorRT-LLM) runs one step after another. Each step decodes one token of every request
in flight, and the prompts that arrived since the last step are prefilled in the next one
(beside the decodes, as vLLM's chunked prefill schedules them). Given the load as
either a **concurrency** (``C`` requests in flight, each user sending the next request
as soon as the last answer ends: a closed loop) or a **request rate** (``lambda``
requests/s with Poisson arrivals: an open loop), this module finds the steady state.

Formula, for ``D`` requests decoding on average, prompts of ``P`` tokens and ``N`` output
tokens (the first comes from the prefill, ``N - 1`` from decode steps):

* a decoding request shares each step with ``b = 1 + q D`` sequences, where ``q = 1`` for
  Poisson arrivals (they see time averages) and ``q = (C - 1) / C`` for a closed loop
  (Schweitzer's approximate mean-value analysis: a request sees the others, not itself);
* each other decoding request brings one prompt per ``N - 1`` steps, so a step lasts
  ``t = T(b, q D / (N - 1))``, where ``T(b, m)`` is the time of decoding ``b`` sequences
  (:func:`~calculators.performance.inference_speed.decode_step`'s roofline at the mean
  context ``P + N / 2``) and prefilling ``m`` prompts. ``prefill="separate"`` (default)
  adds one :func:`~calculators.performance.inference_speed.prefill` pass per prompt, the
  accounting the engines' constants were fitted under; ``prefill="fused"`` times one pass
  whose weights are read once for decodes and prompts together (Sarathi-Serve's
  piggybacking, with memory and compute overlapping perfectly: a lower bound). A fractional
  ``m`` blends the steps with ``floor(m)`` and ``floor(m) + 1`` prompts;
* requests finish at ``X = D / ((N - 1) t)`` per second (Little's law on the decoding
  requests);
* time to first token = the engine's fixed cost per request + the rest of the step in
  progress (half a step, the mean residual of a fixed step time as in an M/D/1 queue,
  when the GPU is busy, with probability ``1 - exp(-q D)``) + the pass that carries the
  prefill (beside the ``q D`` others decoding and the others' prefills of that step);
* end-to-end latency ``R`` = time to first token + ``(N - 1) t``.

Closed loop: ``D`` solves ``C = X R`` (Little's law). Open loop: ``D`` is the smallest
solution of ``X = lambda``; the largest ``X`` over the ``D`` whose requests in flight fit
the GPU is the highest sustainable rate, and a higher rate is *saturated* (the queue grows
without bound). Memory: every request in flight holds the KV cache of its full length
(:func:`calculators.serving.continuous_batch_memory`, one verdict by
:func:`calculators.fit.verdict_for`); a concurrency that does not fit gets no speed, only
the largest concurrency that fits.

At concurrency 1 nothing overlaps and the answer is :func:`inference_speed`'s at batch 1.
No new constant: every time comes from the engine's fitted efficiencies and fixed costs.

>>> load = serving_load(ServedModel.of(model="llama-3-8b", gpu="h100-sxm", engine="vllm"),
...                     Load.of(prompt_tokens=1024, output_tokens=256, concurrency=32))
>>> load.status, load.fits
('ok', True)
>>> round(load.concurrency / (load.requests_per_s * load.end_to_end_latency_s), 6)  # Little's law
1.0

References:
    docs page "How fast will a model generate tokens?" (section "Serving under load");
    Yu et al. 2022, "Orca" (OSDI, iteration-level scheduling); Agrawal et al. 2024,
    "Taming throughput-latency tradeoff in LLM inference with Sarathi-Serve" (OSDI, chunked
    prefill); Schweitzer 1979, "Approximate analysis of multiclass closed networks of queues";
    Little 1961, "A proof for the queuing formula L = lambda W".
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Any

from calculators.catalog.custom_gpu import memory_bandwidth_bytes_per_s
from calculators.catalog.gpus import GPU
from calculators.catalog.usable_memory import usable_memory_bytes
from calculators.dtype_support import serving_notes
from calculators.fit import DOES_NOT_FIT, FitVerdict, share_verdict
from calculators.memory.checkpoint_weights import stored_weights_note
from calculators.memory.inference import largest_fitting
from calculators.memory.result import MemoryEstimate
from calculators.model import ModelSpec
from calculators.performance.error_bands import speed_error_band
from calculators.performance.forward_pass import expert_bytes_read, weight_bytes_read
from calculators.performance.inference_speed import decode_work, prefill_work
from calculators.performance.roofline import Work, step_times
from calculators.performance.serving_result import DOES_NOT_FIT_STATUS, OK, SATURATED, ServingLoad
from calculators.performance.serving_tails import itl_quantile, ttft_quantile
from calculators.performance.served import MAX_CONCURRENCY, MAX_REQUEST_RATE_PER_S, PREFILL_MODES, Load, ServedModel
from calculators.performance.speed_setup import SpeedSetup
from calculators.serving import continuous_batch_memory

__all__ = ["MAX_CONCURRENCY", "MAX_REQUEST_RATE_PER_S", "PREFILL_MODES", "Load", "ServedModel", "ServingLoad",
           "serving_load"]

#: Points of the grid on which the highest sustainable rate is searched.
_GRID = 64
#: Halvings of the bisections (relative precision 2**-60).
_HALVINGS = 60


@dataclass(frozen=True)
class _State:
    """The steady state at ``decoding`` requests decoding on average (see the module docstring)."""

    decoding: float
    decode_batch: float
    step_s: float
    requests_per_s: float
    time_to_first_token_s: float
    end_to_end_latency_s: float

    @property
    def in_flight(self) -> float:
        """Requests holding a KV cache: arrived at the GPU and not yet finished (Little's law)."""
        return self.requests_per_s * self.end_to_end_latency_s


class _Server:
    """Pass times of one model on one GPU setup, memoised by whole batch and whole prompt count."""

    def __init__(self, spec: ModelSpec, gpu: GPU, setup: SpeedSetup, prompt: int, output: int, *,
                 fused: bool) -> None:
        self.spec, self.gpu, self.setup, self.prompt, self.output = spec, gpu, setup, prompt, output
        self.fused = fused
        self.bandwidth = memory_bandwidth_bytes_per_s(gpu) * setup.gpus
        self.prefill = prefill_work(spec, gpu, replace(setup, batch=1, context=prompt))[2]
        # The mean of the decode contexts prompt + 1 .. prompt + output - 1; the step time is
        # linear in the context, so the mean step is the step at the mean (two halves when odd).
        self.contexts = sorted({prompt + output // 2, prompt + (output + 1) // 2})
        self.pass_s = lru_cache(maxsize=None)(self._pass_s)

    def _time(self, work: Work) -> float:
        s = self.setup
        return step_times(work, bandwidth_efficiency=s.bandwidth_efficiency, compute_efficiency=s.compute_efficiency,
                          moe_expert_efficiency=s.moe_expert_efficiency,
                          step_overhead_s_per_layer=s.step_overhead_s_per_layer, kv_reread_cost=s.kv_reread_cost,
                          sequence_overhead_s=s.sequence_overhead_s)[3]

    def _weights_s(self, tokens: int) -> tuple[float, float]:
        """Seconds at full bandwidth to read the weights (and the routed experts) a pass over ``tokens`` needs."""
        fmt = self.setup.format
        return (weight_bytes_read(self.spec, dtype=fmt, tokens=tokens) / self.bandwidth,
                expert_bytes_read(self.spec, dtype=fmt, tokens=tokens) / self.bandwidth)

    def _pass_s(self, batch: int, prompts: int) -> float:
        """Time of ``batch`` decodes and ``prompts`` whole prefills, seconds.

        Separate: the decode pass plus one :func:`prefill_work` pass per prompt. Fused, one pass:
        the weights the pass's tokens need, read once, plus each decode's cache read and each
        prompt's cache written; FLOPs and all-reduces: the sum of the parts. ``prompts=0`` is
        :func:`decode_work`'s step; ``batch=0, prompts=1`` is :func:`prefill_work`'s pass.
        """
        pre = self.prefill
        if prompts and not self.fused:  # each prompt its own pass, as inference_speed times a prefill
            return (self.pass_s(batch, 0) if batch else 0.0) + prompts * self._time(pre)
        pre_weights = self._weights_s(self.prompt)[0]
        weights, experts = self._weights_s(batch + prompts * self.prompt)
        decodes: list[Work | None] = (
            [decode_work(self.spec, self.gpu, replace(self.setup, batch=batch), c)[2] for c in self.contexts]
            if batch else [None])
        times = []
        for dec in decodes:
            memory = weights + prompts * (pre.memory_s - pre_weights)
            compute = None if pre.compute_s is None else prompts * pre.compute_s
            communication, bound = prompts * pre.communication_s, prompts * pre.communication_bound_s
            attention_memory, attention_compute = prompts * pre.attention_memory_s, prompts * pre.attention_compute_s
            rereads = 0.0
            # one pass, launched once: the host's launches of its prefill (no CUDA graph replays a pass with a prompt)
            launches = pre.host_launch_s if prompts else 0.0
            if dec is not None:
                launches = max(launches, dec.host_launch_s)
                memory += dec.memory_s - self._weights_s(batch)[0]
                compute = None if compute is None or dec.compute_s is None else compute + dec.compute_s
                communication, bound = communication + dec.communication_s, bound + dec.communication_bound_s
                attention_memory += dec.attention_memory_s
                attention_compute += dec.attention_compute_s
                rereads = dec.kv_reread_s
            times.append(self._time(Work(memory_s=memory, expert_s=experts, compute_s=compute,
                                         communication_s=communication, communication_bound_s=bound,
                                         layers=pre.layers, attention_memory_s=attention_memory,
                                         attention_compute_s=attention_compute, kv_reread_s=rereads,
                                         sequences=batch + prompts if self.setup.host_work_per_sequence else 0,
                                         host_launch_s=launches)))
        return sum(times) / len(times)

    def between(self, batch: float, prompts: float) -> float:
        """A pass at a fractional batch and prompt count: bilinear between the whole counts around them.

        With ``prompts = j + f`` prompts per step on average, a fraction ``f`` of the steps carries
        ``j + 1`` of them and the rest ``j``: the mean step is the linear blend.
        """
        b, p = math.floor(batch), math.floor(prompts)
        fb, fp = batch - b, prompts - p

        def at(db: int, dp: int) -> float:
            weight = (fb if db else 1.0 - fb) * (fp if dp else 1.0 - fp)
            return weight * self.pass_s(b + db, p + dp) if weight else 0.0

        return at(0, 0) + at(1, 0) + at(0, 1) + at(1, 1)

    def tails(self, state: _State, others: float) -> dict[str, float]:
        """The 90th and 99th percentiles of the time to first token and the inter-token latency
        (:mod:`calculators.performance.serving_tails`), for the steady state ``state``."""
        seen = others * state.decoding
        prompts = seen / (self.output - 1)
        busy = 1.0 - math.exp(-seen)
        out = {}
        for q, tag in ((0.9, "p90"), (0.99, "p99")):
            out[f"time_to_first_token_{tag}_s"] = ttft_quantile(
                q, overhead_s=self.setup.request_overhead_s, step_s=state.step_s, busy=busy, mean_prompts=prompts,
                pass_with=lambda k: self.between(seen, 1.0 + k))
            out[f"inter_token_latency_{tag}_s"] = itl_quantile(
                q, mean_prompts=prompts, step_with=lambda k: self.between(1.0 + seen, float(k)))
        return out

    def state(self, decoding: float, others: float) -> _State:
        """The steady state at ``decoding`` requests decoding; a request sees ``others`` x of them besides itself."""
        seen = others * decoding
        steps = self.output - 1
        prompts = seen / steps  # each decoding request brought one prompt per `steps` steps
        step = self.between(1.0 + seen, prompts)
        rate = decoding / (steps * step)
        busy = 1.0 - math.exp(-seen)
        # The pass that carries this request's prefill: the `seen` others decode in it, and their
        # own prompts ride along at the same rate as in any step.
        prefill_pass = self.between(seen, 1.0 + prompts)
        first = self.setup.request_overhead_s + busy * step / 2 + prefill_pass
        return _State(decoding=decoding, decode_batch=1.0 + seen, step_s=step, requests_per_s=rate,
                      time_to_first_token_s=first, end_to_end_latency_s=first + steps * step)


def _bisect(low: float, high: float, above: Any) -> float:
    """The boundary in ``[low, high]`` where ``above(x)`` turns true (``above(high)`` is true)."""
    for _ in range(_HALVINGS):
        middle = (low + high) / 2
        if above(middle):
            high = middle
        else:
            low = middle
    return high


def serving_load(served: ServedModel, load: Load) -> ServingLoad:
    """Throughput and per-user latency of a continuously batched server at a concurrency or a request rate.

    Formula: the module docstring (decode step at the mean batch a request sees, plus the
    prefills of arriving requests amortised over the steps; Little's law closes the loop).

    Args:
        served: the model, its GPUs and the engine
            (:meth:`ServedModel.of <calculators.performance.served.ServedModel.of>`).
        load: prompt and output lengths, and a concurrency or a request rate
            (:meth:`Load.of <calculators.performance.served.Load.of>`).

    Returns:
        A :class:`ServingLoad`; its speed fields are ``None`` when the requests in flight do not
        fit or the rate is saturated.

    >>> busy = serving_load(ServedModel.of(model="llama-3-8b", gpu="h100-sxm"), Load.of(request_rate_per_s=1000))
    >>> busy.status, busy.output_tokens_per_s
    ('saturated', None)
    """
    spec, record = served.spec, served.gpu
    prompt, output, users, rate = load.prompt_tokens, load.output_tokens, load.concurrency, load.request_rate_per_s
    setup = replace(served.setup, context=prompt)
    mode = load.prefill
    notes = list(serving_notes(record, weights=setup.weights, kv_cache=setup.kv_cache,
                               weights_label=setup.format.id if setup.format.checkpoint else None))
    if setup.format.checkpoint is not None:
        notes.insert(0, stored_weights_note(spec, setup.format.checkpoint))
    usable = usable_memory_bytes(record)

    def memory(sequences: int) -> MemoryEstimate:
        return continuous_batch_memory(spec, sequences=sequences, prompt_tokens=prompt, output_tokens=output,
                                       weights=setup.format, kv_cache=setup.kv_cache.value)

    def verdict(sequences: int) -> FitVerdict:
        return share_verdict(memory(sequences), record, gpus=setup.gpus)

    most = largest_fitting(lambda n: verdict(n).fits, MAX_CONCURRENCY)
    server = _Server(spec, record, setup, prompt, output, fused=mode == "fused")
    fixed: dict[str, Any] = {"model": spec.name, "gpu": record.name, "engine": setup.engine, "gpus": setup.gpus,
                             "prompt_tokens": prompt, "output_tokens": output, "concurrency": users,
                             "request_rate_per_s": rate, "max_concurrency": most}
    assumptions = setup.assumptions() + (
        "continuous batching: every step decodes one token of each request in flight; an arriving prompt is "
        "prefilled whole in the next step, " + (
            "inside the decode pass with the weights read once for both (fused: memory and compute overlap "
            "perfectly; a lower bound on the step time at these efficiencies)" if mode == "fused" else
            "timed as its own prefill pass added to the step (separate: the accounting the engine constants were "
            "fitted under)"),
        "every request has the same prompt and output length; decode steps timed at the mean context",
        "a request sees the mean number of others decoding (Poisson arrivals see time averages; closed loop: "
        "Schweitzer's approximation, (C - 1) / C of them); waits counted: the rest of the step in progress and "
        "the prefill pass; network, tokeniser and sampling beyond the engine's fixed cost not counted",
        "memory: each request in flight holds the KV cache of its whole prompt and answer (no preemption)",
        "percentiles: the prompts arriving during a step are prefilled together in the next one, Poisson in number "
        "(independent arrivals); a token waits for its whole step, prefills included, and an arrival for the step in "
        "progress (calculators.performance.serving_tails); not yet checked against published percentiles",
    )

    # Highest sustainable rate: the most requests/s over the states whose requests in flight fit.
    best: _State | None = None
    if most:
        # A request sees 1 + D sequences in its steps: keep that within the largest batch timed.
        upper = float(min(most, MAX_CONCURRENCY - 1))
        cap = (upper if server.state(upper, 1.0).in_flight <= most
               else _bisect(0.0, upper, lambda d: server.state(d, 1.0).in_flight > most))
        grid = [server.state(cap * i / _GRID, 1.0) for i in range(1, _GRID + 1)]
        best = max(grid, key=lambda s: s.requests_per_s)
    fixed["max_request_rate_per_s"] = None if best is None else best.requests_per_s

    state: _State | None = None
    others = 1.0
    if users is not None:
        held = users
        check = verdict(held)
        if check.verdict == DOES_NOT_FIT:
            status = DOES_NOT_FIT_STATUS
        else:
            status = OK
            others = (users - 1) / users
            state = server.state(_bisect(0.0, float(users), lambda d: server.state(d, others).in_flight >= users),
                                 others)
    else:
        assert rate is not None
        if best is None:
            held = 1
            status, check = DOES_NOT_FIT_STATUS, verdict(held)
        elif rate >= best.requests_per_s:
            held = most
            status, check = SATURATED, verdict(held)
        else:
            status = OK
            grid_low = 0.0
            for candidate in grid:
                if candidate.requests_per_s >= rate:
                    break
                grid_low = candidate.decoding
            state = server.state(_bisect(grid_low, candidate.decoding,
                                         lambda d: server.state(d, 1.0).requests_per_s >= rate), 1.0)
            held = max(1, math.ceil(state.in_flight))
            check = verdict(held)
            if state.in_flight + 2 * math.sqrt(state.in_flight) > most:
                notes.append(f"{state.in_flight:,.1f} requests in flight on average, near the {most} that fit: with "
                             "Poisson arrivals the count swings by about its square root, and requests beyond the "
                             "cap wait in a queue not modelled here")
    if spec.moe is not None:
        notes.append("mixture of experts: experts read per step assume uniform, independent routing")
    if setup.gpus > 1 and mode == "fused":
        notes.append("tensor parallel: a fused pass's all-reduces are counted as the decode's plus the prefill's")
    tails = server.tails(state, others) if state is not None else {}
    return ServingLoad(
        **fixed, status=status, verdict=check.verdict,
        decode_batch=None if state is None else state.decode_batch,
        in_flight=None if state is None else state.in_flight,
        requests_per_s=None if state is None else state.requests_per_s,
        output_tokens_per_s=None if state is None else state.requests_per_s * output,
        inter_token_latency_s=None if state is None else state.step_s,
        time_to_first_token_s=None if state is None else state.time_to_first_token_s,
        end_to_end_latency_s=None if state is None else state.end_to_end_latency_s,
        memory_total_bytes=check.total_bytes, memory_uncertainty_bytes=check.uncertainty_bytes,
        memory_capacity_bytes=check.usable_bytes, assumptions=assumptions, notes=tuple(notes),
        time_to_first_token_p90_s=tails.get("time_to_first_token_p90_s"),
        time_to_first_token_p99_s=tails.get("time_to_first_token_p99_s"),
        inter_token_latency_p90_s=tails.get("inter_token_latency_p90_s"),
        inter_token_latency_p99_s=tails.get("inter_token_latency_p99_s"),
        throughput_band=speed_error_band("batched_throughput", engine=setup.engine_family, gpu=record),
        first_token_band=speed_error_band("time_to_first_token", engine=setup.engine_family, gpu=record),
        memory=memory(held))

