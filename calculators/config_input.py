"""The one reader of ``config.json`` input: size, encoding, nesting and integer limits, checked before parsing.

Every face reads a config through :func:`load_config_json`: the CLI's ``--model`` (a path
or JSON text), :func:`~calculators.model_config.spec_from_config`
(a dict, text, bytes or a path) and the widgets' pasted or uploaded text. Whatever the
input, the answer is a ``dict`` or a :class:`~calculators.errors.InputError` naming
``config`` (the input) or ``config.json`` (its content); never ``RecursionError``,
``UnicodeDecodeError``, ``OSError`` or Python's 4,300-digit ``ValueError``.

Limits, stated (real configs are far inside them):

* size: at most :data:`MAX_CONFIG_BYTES` (1 MiB), checked from the file's size before
  reading it. DeepSeek-V3's config.json is about 1.7 KB and Llama 3.1 405B's under 1 KB;
  the largest multimodal configs with nested vision and text parts stay under 20 KB.
* encoding: UTF-8, with or without a byte-order mark (text editors on Windows add one);
  UTF-16, UTF-32 and Latin-1 bytes are refused with the encoding named.
* nesting: at most :data:`MAX_JSON_DEPTH` levels of objects and arrays (real configs use
  three: ``text_config.rope_scaling.{...}``); checked by counting brackets, not by
  recursing, because deep recursion in the browser's Python breaks the runtime.
* integers: at most :data:`MAX_INT_DIGITS` digits (the largest count in any config, a
  vocabulary or a context length, has 7).
* a path: at most :data:`MAX_PATH_CHARS` characters, an existing regular file.

>>> load_config_json(b'\\xef\\xbb\\xbf{"model_type": "llama"}')
{'model_type': 'llama'}
>>> load_config_json('{"n": ' + '9' * 50 + '}')
Traceback (most recent call last):
...
calculators.errors.ConfigError: config.json: got 'an integer of 50 digits'; expected integers of at most 30 digits
"""

from __future__ import annotations

import codecs
import json
import os
import re
from collections.abc import Mapping
from itertools import accumulate
from pathlib import Path
from typing import Any

from calculators.errors import ConfigError, InputError

#: Largest config.json accepted, in bytes (1 MiB): ~500x DeepSeek-V3's.
MAX_CONFIG_BYTES = 1 << 20
#: Deepest nesting of JSON objects and arrays accepted.
MAX_JSON_DEPTH = 32
#: Longest integer literal accepted, in digits.
MAX_INT_DIGITS = 30
#: Longest path accepted, in characters (Linux's PATH_MAX is 4096).
MAX_PATH_CHARS = 4096

_JSON = "valid JSON (a Hugging Face config.json)"
_STRINGS = re.compile(r'"(?:[^"\\]|\\.)*"', re.DOTALL)
_BRACKETS = re.compile(r"[\[\]{}]")
_BOMS = ((codecs.BOM_UTF32_LE, "UTF-32"), (codecs.BOM_UTF32_BE, "UTF-32"), (codecs.BOM_UTF16_LE, "UTF-16"),
         (codecs.BOM_UTF16_BE, "UTF-16"))


class _TooLong(Exception):
    def __init__(self, digits: int) -> None:
        super().__init__(digits)
        self.digits = digits


def _size_error(field: str, size: int) -> InputError:
    return InputError(field, f"{size:,} bytes", f"a config.json of at most {MAX_CONFIG_BYTES:,} bytes (1 MiB)")


def decode_config_bytes(data: bytes, *, field: str = "config") -> str:
    """The text of config.json bytes: UTF-8 with or without a byte-order mark, else :class:`InputError`.

    >>> decode_config_bytes('{"a": 1}'.encode("utf-16"))
    Traceback (most recent call last):
    ...
    calculators.errors.InputError: config: got 'UTF-16 text'; expected a UTF-8 encoded config.json (with or without a byte-order mark)
    """
    accepted = "a UTF-8 encoded config.json (with or without a byte-order mark)"
    if not isinstance(data, (bytes, bytearray)):
        raise InputError(field, type(data).__name__, "the bytes of a config.json")
    data = bytes(data)
    if len(data) > MAX_CONFIG_BYTES:
        raise _size_error(field, len(data))
    for bom, name in _BOMS:
        if data.startswith(bom):
            raise InputError(field, f"{name} text", accepted)
    if len(data) >= 2 and (data[0] == 0) != (data[1] == 0):
        raise InputError(field, "UTF-16 text", accepted)  # UTF-16 without a BOM: every other byte is 0
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise InputError(field, f"byte 0x{data[error.start]:02x} at offset {error.start} is not UTF-8",
                         accepted) from None


def read_config_file(path: str | os.PathLike[str], *, field: str = "config") -> str:
    """The text of a config.json file, after checking its path, kind and size (before reading it)."""
    if not isinstance(path, (str, os.PathLike)):
        raise InputError(field, type(path).__name__, "a path to a config.json file")
    shown = os.fspath(path)
    if not isinstance(shown, str):
        raise InputError(field, type(shown).__name__, "a path to a config.json file")
    if len(shown) > MAX_PATH_CHARS:
        raise InputError(field, f"a path of {len(shown):,} characters",
                         f"a path to a config.json of at most {MAX_PATH_CHARS} characters")
    accepted = "a path to an existing config.json file, or its JSON text"
    try:
        stat = os.stat(shown)
    except (OSError, ValueError):  # missing, too long a name, a NUL byte, no permission
        raise InputError(field, shown, accepted) from None
    import stat as kinds

    if not kinds.S_ISREG(stat.st_mode):
        raise InputError(field, shown, accepted)
    if stat.st_size > MAX_CONFIG_BYTES:
        raise _size_error(field, stat.st_size)
    try:
        with open(shown, "rb") as handle:
            data = handle.read(MAX_CONFIG_BYTES + 1)
    except OSError as error:
        raise InputError(field, shown, f"a readable file ({error.strerror or 'cannot be read'})") from None
    return decode_config_bytes(data, field=field)


def check_json_depth(text: str) -> None:
    """Refuse JSON nested deeper than :data:`MAX_JSON_DEPTH`, without recursing."""
    _need_text(text)
    if text.count("[") + text.count("{") <= MAX_JSON_DEPTH:
        return
    brackets = _BRACKETS.findall(_STRINGS.sub("", text))
    steps = (1 if bracket in "[{" else -1 for bracket in brackets)
    deepest = max(accumulate(steps), default=0)
    if deepest > MAX_JSON_DEPTH:
        raise ConfigError("json", f"nested {deepest} levels deep", f"JSON nested at most {MAX_JSON_DEPTH} levels")


def _need_text(text: object) -> None:
    if not isinstance(text, str):
        raise InputError("config", type(text).__name__, "the JSON text of a config.json")


def _parse_int(text: str) -> int:
    digits = len(text.lstrip("-"))
    if digits > MAX_INT_DIGITS:
        raise _TooLong(digits)
    return int(text)


def parse_config_text(text: str) -> Any:
    """Parse JSON text within the limits (size, depth, integer length); returns the decoded value."""
    _need_text(text)
    if len(text) > MAX_CONFIG_BYTES or len(text.encode("utf-8", "surrogatepass")) > MAX_CONFIG_BYTES:
        raise _size_error("config", len(text.encode("utf-8", "surrogatepass")))
    text = text.removeprefix("\ufeff")
    check_json_depth(text)
    try:
        return json.loads(text, parse_int=_parse_int)
    except _TooLong as error:
        raise ConfigError("json", f"an integer of {error.digits} digits",
                          f"integers of at most {MAX_INT_DIGITS} digits") from None
    except json.JSONDecodeError as error:
        raise ConfigError("json", f"line {error.lineno} column {error.colno}: {error.msg}", _JSON) from None
    except (ValueError, RecursionError, MemoryError):  # belt and braces: the checks above should catch these
        raise ConfigError("json", "unreadable", _JSON) from None


def load_config_text(text: str) -> dict[str, Any]:
    """The JSON text of a config.json (pasted into a form) as a dict; never read as a path.

    >>> load_config_text('"llama"')
    Traceback (most recent call last):
    ...
    calculators.errors.ConfigError: config.json: got 'str'; expected a JSON object at the top level
    """
    data = parse_config_text(text)
    if not isinstance(data, dict):
        raise ConfigError("json", type(data).__name__, "a JSON object at the top level")
    return data


def load_config_json(config: Mapping[str, Any] | str | bytes | os.PathLike[str], *,
                     field: str = "config") -> dict[str, Any]:
    """A config.json as a dict, from a dict, its JSON text, its bytes or a path to the file.

    A ``str`` that starts with ``{`` (after blanks and a byte-order mark) is JSON text;
    any other ``str`` is a path.

    Raises:
        InputError: naming ``field`` (the input: not a file, too big, not UTF-8) or
            ``config.json`` (the content: not JSON, too deep, not an object).
    """
    data: Any
    if isinstance(config, Mapping):
        data = dict(config)
    elif isinstance(config, (bytes, bytearray)):
        data = parse_config_text(decode_config_bytes(bytes(config), field=field))
    elif isinstance(config, str) and config.lstrip("\ufeff \t\r\n").startswith(("{", "[")):
        data = parse_config_text(config)
    elif isinstance(config, (str, os.PathLike)):
        if isinstance(config, str) and not config.strip():
            raise InputError(field, config, "a path to a config.json file, or its JSON text")
        data = parse_config_text(read_config_file(Path(config) if isinstance(config, str) else config,
                                                  field=field))
    else:
        raise InputError(field, type(config).__name__, "a dict, JSON text, bytes or a path to config.json")
    if not isinstance(data, dict):
        raise ConfigError("json", type(data).__name__, "a JSON object at the top level")
    return data
