"""A served model and the load on it, each checked once: the records :func:`serving_load` takes.

:class:`ServedModel` is a model on its GPUs with an engine: the model and the GPU are resolved
once (:func:`calculators.inputs.resolve_model`, :func:`calculators.inputs.resolve_gpu`), the
weights ``"auto"`` against the model's checkpoint, and the engine's efficiencies and fixed costs
into a :class:`~calculators.performance.speed_setup.SpeedSetup`. :class:`Load` is what arrives:
prompt and output lengths and either a concurrency (closed loop) or a request rate (open loop).
Each record's ``of(**raw)`` checks every value and raises
:class:`~calculators.errors.InputError` naming the field and its range; the functions that take
the records trust them. The raw inputs and their defaults are declared by :class:`ServedInputs`
and :class:`Load` (their signatures are what the command line and the form read).

>>> served = ServedModel.of(model="llama-3-8b", gpu="h100-sxm", engine="vllm")
>>> served.spec.name, served.gpu.id, served.setup.engine, served.setup.weights.value
('Llama 3 8B', 'h100-sxm', 'vllm', 'bf16')
>>> Load.of(concurrency=32).prompt_tokens
1024
>>> Load.of(concurrency=4, output_tokens=1)
Traceback (most recent call last):
...
calculators.errors.InputError: output_tokens: got 1; expected an integer from 2 to 16776192
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from calculators.catalog.gpus import GPU
from calculators.errors import InputError
from calculators.inputs.gpu import resolve_gpu
from calculators.inputs.model import resolve_model
from calculators.memory.inference import MAX_BATCH, MAX_CONTEXT
from calculators.memory.weight_formats import resolve_weights
from calculators.model import ModelSpec
from calculators.performance.speed_setup import ServerInputs, SpeedSetup
from calculators.validate import finite_float, one_of, positive_int

#: Most requests in flight accepted (the memory calculator's largest batch).
MAX_CONCURRENCY = MAX_BATCH
#: Highest request rate accepted, requests/s.
MAX_REQUEST_RATE_PER_S = 1e6
#: How an arriving prompt's prefill is timed: as its own pass added to the step (``separate``), or
#: inside the decode pass with the weights read once for both (``fused``).
PREFILL_MODES = ("separate", "fused")


@dataclass(frozen=True)
class ServedInputs(ServerInputs):
    """The raw inputs of a :class:`ServedModel`, as a user gives them, with their defaults.

    Attributes:
        model: a catalog id, a config.json or a :class:`~calculators.model.ModelSpec`.
        gpu: a catalog id, a ``custom:``/``mac:`` description or a GPU record.
        weights, kv_cache, gpus, engine, bandwidth_efficiency, compute_efficiency, interconnect,
            collective_efficiency: the server's, declared by :class:`~calculators.performance.speed_setup.ServerInputs`
            (``weights`` ``"auto"``: as the model's checkpoint stores them).
    """

    model: ModelSpec | str | Any
    gpu: GPU | str


@dataclass(frozen=True)
class ServedModel:
    """A model served on ``setup.gpus`` GPUs of one kind with an engine, checked (build it with :meth:`of`)."""

    spec: ModelSpec
    gpu: GPU
    setup: SpeedSetup

    @classmethod
    def of(cls, **raw: Any) -> ServedModel:
        """Resolve the model and the GPU once and check the engine settings (keywords: :class:`ServedInputs`).

        Raises:
            InputError: a value out of range, naming it; UnknownNameError: an unknown model, GPU or engine.
            TypeError: a keyword :class:`ServedInputs` does not have.
        """
        given = ServedInputs(**raw)
        spec, gpu = resolve_model(given.model, field="spec"), resolve_gpu(given.gpu)
        weights = resolve_weights(spec, given.weights) if isinstance(given.weights, str) else given.weights
        setup = SpeedSetup.of(**{**given.server_settings(), "weights": weights})
        return cls(spec=spec, gpu=gpu, setup=setup)


@dataclass(frozen=True)
class Load:
    """The load on a served model: every request's prompt and output length, and a concurrency or a rate.

    Attributes:
        prompt_tokens: prompt tokens per request.
        output_tokens: generated tokens per request (at least 2: one from the prefill, the rest decoded).
        concurrency: requests in flight, closed loop (give this or ``request_rate_per_s``).
        request_rate_per_s: offered requests per second, Poisson arrivals (open loop).
        prefill: ``"separate"`` (an arriving prompt's prefill pass is added to the step it rides in)
            or ``"fused"`` (one pass for decodes and prompts, weights read once).

    Build it with :meth:`of`, which checks every value; the constructor itself does not.
    """

    prompt_tokens: int = 1024
    output_tokens: int = 256
    concurrency: int | None = None
    request_rate_per_s: float | None = None
    prefill: str = "separate"

    @classmethod
    def of(cls, **raw: Any) -> Load:
        """Check every value (keywords: the attributes); raises InputError naming the field and its range.

        >>> Load.of(request_rate_per_s="2.5").request_rate_per_s
        2.5
        >>> Load.of(concurrency=4, request_rate_per_s=1.0)
        Traceback (most recent call last):
        ...
        calculators.errors.InputError: concurrency: got 4; expected either a concurrency or a request_rate_per_s, not both or neither
        """
        given = cls(**raw)
        prompt = positive_int("prompt_tokens", given.prompt_tokens, maximum=MAX_CONTEXT - 2)
        output = positive_int("output_tokens", given.output_tokens, minimum=2, maximum=MAX_CONTEXT - prompt)
        if (given.concurrency is None) == (given.request_rate_per_s is None):
            raise InputError("concurrency", given.concurrency,
                             "either a concurrency or a request_rate_per_s, not both or neither")
        users = (None if given.concurrency is None
                 else positive_int("concurrency", given.concurrency, maximum=MAX_CONCURRENCY))
        rate = (None if given.request_rate_per_s is None else
                finite_float("request_rate_per_s", given.request_rate_per_s, minimum=0.0,
                             maximum=MAX_REQUEST_RATE_PER_S, allow_minimum=False))
        return cls(prompt_tokens=prompt, output_tokens=output, concurrency=users, request_rate_per_s=rate,
                   prefill=one_of("prefill", given.prefill, PREFILL_MODES))
