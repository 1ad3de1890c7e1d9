"""Input checks shared by every calculator; each raises :class:`~calculators.errors.InputError`.

>>> positive_int("batch", 4, maximum=1024)
4
>>> positive_int("batch", 0, maximum=1024)
Traceback (most recent call last):
...
calculators.errors.InputError: batch: got 0; expected an integer from 1 to 1024
"""

from __future__ import annotations

import functools
import inspect
import math
from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from calculators.errors import InputError, UnknownNameError
from calculators.units import COUNT_SUFFIXES

if TYPE_CHECKING:  # imported where used: that module imports this one
    from calculators.model import ModelSpec

E = TypeVar("E")
T = TypeVar("T")


def positive_int(field: str, value: Any, *, maximum: int, minimum: int = 1) -> int:
    """Return ``value`` as an int if it is an integer in ``[minimum, maximum]``."""
    accepted = f"an integer from {minimum} to {maximum}"
    if isinstance(value, bool):
        raise InputError(field, value, accepted)
    if isinstance(value, float):
        if not math.isfinite(value) or value != int(value):
            raise InputError(field, value, accepted)
        value = int(value)
    if isinstance(value, str):
        text = value.strip()
        # Python refuses to convert more than 4300 digits (a ValueError); no count needs 20.
        if len(text) > 40:
            raise InputError(field, value, accepted)
        try:
            value = int(text)
        except ValueError:
            raise InputError(field, value, accepted) from None
    if not isinstance(value, int) or not minimum <= value <= maximum:
        raise InputError(field, value, accepted)
    return value


def nonnegative_int(field: str, value: Any, *, maximum: int) -> int:
    """Return ``value`` as an int if it is an integer in ``[0, maximum]``."""
    return positive_int(field, value, maximum=maximum, minimum=0)


#: Smallest value of a quantity that must be above 0 (a fraction, a rate, a price): dividing
#: by a subnormal number such as 5e-324 gives infinity, never an answer.
MIN_POSITIVE = 1e-9


def finite_float(field: str, value: Any, *, minimum: float, maximum: float,
                 allow_minimum: bool = True) -> float:
    """Return ``value`` as a float if it is finite and within the given range.

    A range open at 0 (``minimum=0, allow_minimum=False``) starts at :data:`MIN_POSITIVE`.
    """
    if not allow_minimum and minimum == 0:
        minimum, allow_minimum = MIN_POSITIVE, True
    low = "from" if allow_minimum else "above"
    accepted = f"a number {low} {minimum:g} to {maximum:g}"
    if isinstance(value, bool):
        raise InputError(field, value, accepted)
    if not isinstance(value, (int, float, str)):
        raise InputError(field, value, accepted)
    try:
        number = float(value)
    except (TypeError, ValueError, OverflowError):  # OverflowError: an int past 1.8e308, such as 10**400
        raise InputError(field, value, accepted) from None
    if not math.isfinite(number) or number > maximum:
        raise InputError(field, value, accepted)
    if number < minimum or (number == minimum and not allow_minimum):
        raise InputError(field, value, accepted)
    return number


def flag(field: str, value: Any) -> bool:
    """Return ``value`` as a bool; accepts True/False and the strings true/false/1/0/yes/no/on/off.

    >>> flag("grad_checkpointing", "false")
    False
    """
    if isinstance(value, bool):
        return value
    if isinstance(value, int) and value in (0, 1):
        return bool(value)
    if isinstance(value, str):
        key = value.strip().lower()
        if key in ("true", "1", "yes", "on"):
            return True
        if key in ("false", "0", "no", "off", ""):
            return False
    raise InputError(field, value, "true or false")


def one_of(field: str, value: Any, choices: Iterable[E]) -> E:
    """Return the choice equal to ``value`` (enum members also match their ``.value``)."""
    options = list(choices)
    for option in options:
        try:
            if value == option or value == getattr(option, "value", object()):
                return option
        except Exception:  # noqa: BLE001 - a value whose == fails (an array, say) is no choice
            break
    names = [str(getattr(option, "value", option)) for option in options]
    raise UnknownNameError(field, value, names)


#: What a function that takes a model record says when given anything else (:func:`instance_of`); an
#: entry point reads a model id or a config.json first (:func:`calculators.inputs.model.resolve_model`).
MODEL_RECORD = "a ModelSpec (calculators.get_model(id) or spec_from_config(...))"
#: What a function that takes a GPU record says when given anything else; an entry point reads a GPU id
#: or a ``custom:``/``mac:`` description first (:func:`calculators.inputs.gpu.resolve_gpu`).
GPU_RECORD = "a GPU record (calculators.get_gpu(id) or calculators.resolve_gpu(text))"


def model_spec(field: str, value: Any) -> ModelSpec:
    """Return ``value`` if it is a :class:`~calculators.model.ModelSpec`, else :class:`InputError`.

    The engine's check of the model record it is given (its type only: a record is trusted); it
    resolves nothing. A face or an entry point reads an id or a config.json into a record first, with
    the one reader of a model, :func:`calculators.inputs.model.resolve_model`.

    >>> model_spec("spec", None)
    Traceback (most recent call last):
    ...
    calculators.errors.InputError: spec: got None; expected a ModelSpec (calculators.get_model(id) or spec_from_config(...))
    """
    from calculators.model import ModelSpec

    return instance_of(field, value, ModelSpec, MODEL_RECORD)


def instance_of(field: str, value: Any, kind: type[T], expected: str) -> T:
    """Return ``value`` if it is a ``kind``, else :class:`InputError` naming ``field`` and ``expected``.

    The one check of a record a function is given (a :class:`~calculators.model.ModelSpec` with
    :data:`MODEL_RECORD`, a GPU with :data:`GPU_RECORD`): its type, never its content again.

    >>> instance_of("link", None, int, "an Interconnect (calculators.catalog.interconnects.get_interconnect)")
    Traceback (most recent call last):
    ...
    calculators.errors.InputError: link: got None; expected an Interconnect (calculators.catalog.interconnects.get_interconnect)
    """
    if not isinstance(value, kind):
        raise InputError(field, value, expected)
    return value


def names(field: str, value: Any, choices: Iterable[str]) -> tuple[str, ...]:
    """Return a comma-separated string or an iterable of names as a tuple, each one of ``choices``.

    >>> names("lora_targets", "q, v", ["q", "k", "v"])
    ('q', 'v')
    """
    options = list(choices)
    accepted = f"comma-separated names from: {', '.join(options)}"
    if isinstance(value, str):
        items = [item.strip() for item in value.split(",")]
    elif isinstance(value, (list, tuple, set, frozenset)):
        items = list(value)
    else:
        raise InputError(field, value, accepted)
    if not items or any(not isinstance(item, str) or item not in options for item in items):
        raise InputError(field, value, accepted)
    return tuple(items)


def token_count(field: str, value: Any, *, maximum: float) -> int:
    """Return a count of tokens from 1 to ``maximum``: ``2000000000000``, ``2e12`` or ``2T``/``500B``/``10M``/``5k``
    (either case; :data:`~calculators.units.COUNT_SUFFIXES`).

    The command line and the widget forms read token counts with this one function.

    >>> token_count("tokens", "2T", maximum=1e16), token_count("tokens", 5e8, maximum=1e16)
    (2000000000000, 500000000)
    >>> token_count("tokens", "2X", maximum=1e16)
    Traceback (most recent call last):
    ...
    calculators.errors.InputError: tokens: got '2X'; expected a token count from 1 to 1e+16 (e.g. 2e12 or 2T)
    """
    accepted = f"a token count from 1 to {maximum:g} (e.g. 2e12 or 2T)"
    text = str(value).strip()
    scale = {suffix.lower(): float(size) for suffix, size in COUNT_SUFFIXES}.get(text[-1:].lower(), 1.0)
    number = text[:-1] if scale != 1.0 else text
    try:
        tokens = float(number) * scale
    except ValueError:
        raise InputError(field, value, accepted) from None
    if not 1 <= tokens <= maximum:  # NaN fails too
        raise InputError(field, value, accepted)
    return int(round(tokens))


#: The command line's one spelling of "the engine's default" for an option whose default is ``None``.
AUTO = "auto"


def none_if_auto(text: str) -> str | None:
    """``None`` for :data:`AUTO` (any case, spaces around), else ``text``: the engine then chooses.

    >>> none_if_auto(" Auto "), none_if_auto("0.8")
    (None, '0.8')
    """
    return None if text.strip().lower() == AUTO else text


@functools.lru_cache(maxsize=None)
def parameters_of(function: Callable[..., Any]) -> Mapping[str, inspect.Parameter]:
    """The parameters of ``function`` by name, read from its signature once per function
    (building the CLI's parser reads the same engines' signatures thousands of times).

    >>> from calculators.memory.training_inputs import training_setup
    >>> parameters_of(training_setup)["seq"].default
    2048
    """
    return inspect.signature(function).parameters


def default_of(function: Callable[..., Any], name: str) -> Any:
    """The default of keyword argument ``name`` of ``function``: the CLI and the widget forms read
    their defaults from the engine's signature, so the three faces cannot disagree.

    >>> from calculators.memory.training_inputs import training_setup
    >>> default_of(training_setup, "seq")
    2048
    """
    parameter = parameters_of(function)[name]
    if parameter.default is inspect.Parameter.empty:
        raise ValueError(f"{function.__name__}() has no default for {name}")
    return parameter.default


F = TypeVar("F", bound=Callable[..., Any])


def settings_signature(defaults: Mapping[str, Any], *, leading: tuple[str, ...] = (),
                       required: tuple[str, ...] = (), records: tuple[type, ...] = (),
                       types: Mapping[str, str] | None = None) -> Callable[[F], F]:
    """Decorator: give a ``**settings`` convenience the signature of the record keywords it passes on.

    A convenience such as :func:`calculators.performance.training_time.training_time` takes ``**settings``
    and hands them to a record's checking constructor (``TrainingRun.of``), whose keywords and defaults are
    declared once, in a mapping. This sets the function's ``__signature__`` from that mapping (``leading``
    positional parameters first, then each key keyword-only with its default, the ``required`` ones
    without), so that :func:`default_of`, :func:`parameters_of` and ``help()`` read the record's defaults.

    Each keyword is annotated with the type of the field of that name in the first of ``records`` that has
    one (what the record holds once checked), or with ``types[name]`` where the input differs from the field
    (a GPU id or record where the field is a record); the leading parameters and the return keep the
    function's own annotations. A keyword with neither is refused when the module is imported.

    >>> from dataclasses import dataclass
    >>> @dataclass
    ... class Job:
    ...     batch: int
    ...     seq: int
    >>> @settings_signature({"batch": 1, "seq": 2048, "tokens": None}, leading=("spec",), required=("tokens",),
    ...                     records=(Job,), types={"tokens": "int"})
    ... def job(spec: object, **settings: object) -> None: ...
    >>> str(inspect.signature(job)), default_of(job, "seq")
    ("(spec: 'object', *, batch: 'int' = 1, seq: 'int' = 2048, tokens: 'int') -> 'None'", 2048)
    """
    annotations: dict[str, Any] = {}
    for record in reversed(records):
        annotations.update({name: kind for name, kind in inspect.get_annotations(record).items()})
    annotations.update(types or {})
    missing = [name for name in defaults if name not in annotations]
    if (records or types) and missing:
        raise ValueError(f"settings_signature: no type for {', '.join(missing)}; declare it in types=")
    empty = inspect.Parameter.empty

    def decorate(function: F) -> F:
        own = inspect.get_annotations(function)
        positional = [inspect.Parameter(name, inspect.Parameter.POSITIONAL_OR_KEYWORD, annotation=own.get(name, empty))
                      for name in leading]
        keywords = [inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY,
                                      default=empty if name in required else value,
                                      annotation=annotations.get(name, empty))
                    for name, value in defaults.items()]
        function.__signature__ = inspect.Signature(  # type: ignore[attr-defined]
            positional + keywords, return_annotation=own.get("return", empty))
        return function
    return decorate
