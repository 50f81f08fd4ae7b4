"""Readers of single option values typed on the command line or held in an environment
variable (argparse's ``type=``).

Each takes the text a user typed and returns the typed value, or raises
``argparse.ArgumentTypeError`` with a message that says what was expected; argparse puts the
flag's name in front, and :class:`mcp_sim.cli.command.CliParser` prints it as one line with exit
status 2. Checking values here, while parsing, means no command starts (and no model is
launched) with a value it would only trip over later, in a traceback. :func:`for_field` makes
the reader of a settings field from its type and constraints, so they are declared once.
"""

from __future__ import annotations

import json
import math
from argparse import ArgumentTypeError
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import annotated_types
from pydantic.fields import FieldInfo

from mcp_sim.models.replicas import read_url_file

STUB_SCHEME = "stub:"
"""The ``--model-url`` of the stand-in model (:mod:`mcp_sim.models.stub`), alone or followed
by the path of a file of scripted answers."""

STORE_SCHEMES = ("memory", "sqlite:///PATH", "redis://HOST:PORT/DB")


def text(value: str) -> str:
    """Any text that is not blank (a model id, a key, a name)."""
    if not value.strip():
        raise ArgumentTypeError("expected a value, got an empty one")
    return value


def http_url(value: str) -> str:
    """An ``http://`` or ``https://`` URL with a host."""
    parts = urlsplit(value)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ArgumentTypeError(f"expected an http:// or https:// URL, got {value!r}")
    try:
        parts.port  # noqa: B018 - urlsplit checks the port only when asked for it
    except ValueError:
        raise ArgumentTypeError(f"the port of {value!r} is not a port number") from None
    return value


def model_url(value: str) -> str:
    """A world model's base URL (see :func:`http_url`), or the stand-in model: ``stub:``, or
    ``stub:FILE`` with a file of scripted answers (read when the model is made)."""
    if not value.startswith(STUB_SCHEME):
        return http_url(value)
    script = stub_script_path(value)
    if script is not None and not script.is_file():
        raise ArgumentTypeError(f"no stub script {script} (stub:FILE names a file of answers)")
    return value


def stub_script_path(url: str) -> Path | None:
    """The script file a ``stub:FILE`` URL names (``None`` for plain ``stub:``)."""
    rest = url.removeprefix(STUB_SCHEME)
    return Path(rest) if rest else None


def check_store_url(url: str) -> str:
    """``url`` if it names an episode store, else a ValueError saying what would."""
    if url == "memory" or url.startswith(("redis://", "rediss://")):
        return url
    if url.startswith("sqlite:///") and len(url) > len("sqlite:///"):
        return url
    raise ValueError(f"not an episode store: {url!r} (use {', '.join(STORE_SCHEMES)})")


def episode_store(value: str) -> str:
    """An episode store's URL: ``memory``, ``sqlite:///PATH`` or ``redis://...``."""
    try:
        return check_store_url(value)
    except ValueError as exc:
        raise ArgumentTypeError(str(exc)) from None


def listed_urls(value: str) -> list[str]:
    """The base URLs a file lists, one per line, each checked like ``--model-url``."""
    try:
        urls = read_url_file(value)
    except ValueError as exc:
        raise ArgumentTypeError(str(exc)) from None
    for url in urls:
        try:
            http_url(url)
        except ArgumentTypeError as exc:
            raise ArgumentTypeError(f"{value}: {exc}") from None
    return urls


def http_urls_file(value: str) -> Path:
    """A file of base URLs (see :func:`listed_urls`), checked while parsing."""
    listed_urls(value)
    return Path(value)


def integer(minimum: int | None = None, maximum: int | None = None) -> Callable[[str], int]:
    """Whole numbers, optionally within ``[minimum, maximum]``."""

    def parse(value: str) -> int:
        try:
            number = int(value)
        except ValueError:
            raise ArgumentTypeError(f"expected a whole number, got {value!r}") from None
        _check_range(value, number, minimum, maximum)
        return number

    return parse


def number(
    minimum: float | None = None, maximum: float | None = None, *, above: float | None = None
) -> Callable[[str], float]:
    """Finite decimal numbers within ``[minimum, maximum]``, or strictly greater than ``above``."""

    def parse(value: str) -> float:
        try:
            parsed = float(value)
        except ValueError:
            raise ArgumentTypeError(f"expected a number, got {value!r}") from None
        if not math.isfinite(parsed):
            raise ArgumentTypeError(f"expected a finite number, got {value!r}")
        if above is not None and parsed <= above:
            raise ArgumentTypeError(f"expected a number greater than {above:g}, got {value!r}")
        _check_range(value, parsed, minimum, maximum)
        return parsed

    return parse


def _check_range(value: str, parsed: float, minimum: float | None, maximum: float | None) -> None:
    if minimum is not None and maximum is not None and not minimum <= parsed <= maximum:
        raise ArgumentTypeError(f"expected a value from {minimum:g} to {maximum:g}, got {value!r}")
    if minimum is not None and parsed < minimum:
        raise ArgumentTypeError(f"expected at least {minimum:g}, got {value!r}")
    if maximum is not None and parsed > maximum:
        raise ArgumentTypeError(f"expected at most {maximum:g}, got {value!r}")


def host_port(value: str) -> tuple[str, int]:
    """``HOST:PORT`` (``[::1]:PORT`` for IPv6; an empty host means 127.0.0.1)."""
    host, sep, port = value.rpartition(":")
    if not sep or not port.isdigit():
        raise ArgumentTypeError(f"expected HOST:PORT, got {value!r}")
    if not 1 <= int(port) <= 65535:
        raise ArgumentTypeError(f"the port of {value!r} is not from 1 to 65535")
    return host.strip("[]") or "127.0.0.1", int(port)


def json_object(value: str) -> dict[str, Any]:
    """A JSON object, e.g. tool arguments."""
    try:
        parsed = json.loads(value)
    except json.JSONDecodeError as exc:
        raise ArgumentTypeError(f"not valid JSON: {exc}") from None
    if not isinstance(parsed, dict):
        raise ArgumentTypeError(f"must be a JSON object, got {type(parsed).__name__}")
    return parsed


def existing_file(what: str) -> Callable[[str], Path]:
    """A file that is there to be read; ``what`` names it in the message (``journal``)."""

    def parse(value: str) -> Path:
        path = Path(value)
        if not path.is_file():
            raise ArgumentTypeError(f"no {what} at {value!r}")
        return path

    return parse


def existing_folder(what: str) -> Callable[[str], Path]:
    """A folder that is there; ``what`` names it in the message. Resolved, so that what is
    kept in it stays where it was meant to be whatever the working folder later is."""

    def parse(value: str) -> Path:
        path = Path(value)
        if not path.is_dir():
            raise ArgumentTypeError(f"no {what} at {value!r} (create the folder first)")
        return path.resolve()

    return parse


def output_folder(value: str) -> Path:
    """A folder to create or write into: not a file, and not under a file."""
    path = Path(value)
    if not value.strip():
        raise ArgumentTypeError("expected a folder path, got an empty one")
    existing = next((p for p in (path, *path.parents) if p.exists()), None)
    if existing is not None and not existing.is_dir():
        raise ArgumentTypeError(f"{str(existing)!r} in {value!r} is a file, not a folder")
    return path


def output_file(value: str) -> Path:
    """A file to create or append to (missing folders are created): not a folder, and not
    under a file."""
    path = Path(value)
    if not value.strip():
        raise ArgumentTypeError("expected a file path, got an empty one")
    if path.is_dir():
        raise ArgumentTypeError(f"expected a file, got the folder {value!r}")
    existing = next((parent for parent in path.parents if parent.exists()), None)
    if existing is not None and not existing.is_dir():
        raise ArgumentTypeError(f"{str(existing)!r} in {value!r} is a file, not a folder")
    return path


def project_folder(value: str) -> Path:
    """An existing folder holding a Python project (its ``pyproject.toml``)."""
    path = Path(value)
    if not (path / "pyproject.toml").is_file():
        raise ArgumentTypeError(f"expected a folder with a pyproject.toml, got {value!r}")
    return path


def pair(separator: str, what: str) -> Callable[[str], tuple[str, str]]:
    """``KEY<separator>VALUE``; spaces around a header's name and value are dropped."""

    def parse(value: str) -> tuple[str, str]:
        key, sep, rest = value.partition(separator)
        if not sep or not key.strip():
            raise ArgumentTypeError(f"expected {what}, got {value!r}")
        return key.strip(), rest.strip() if separator == ":" else rest

    return parse


def switch(value: str) -> bool:
    """A yes/no value in an environment variable: 1/0, true/false, yes/no, on/off."""
    lowered = value.strip().lower()
    if lowered in ("1", "true", "yes", "on"):
        return True
    if lowered in ("0", "false", "no", "off"):
        return False
    raise ArgumentTypeError(f"expected true or false, got {value!r}")


def for_field(info: FieldInfo) -> Callable[[str], Any]:
    """The reader of one value of a settings field of a plain type (text, whole number,
    number, yes/no), checked against the field's ``ge``/``gt``/``le`` constraints."""
    kinds = set(getattr(info.annotation, "__args__", ())) or {info.annotation}
    kinds.discard(type(None))
    low = _bound(info, annotated_types.Ge, "ge")
    above = _bound(info, annotated_types.Gt, "gt")
    high = _bound(info, annotated_types.Le, "le")
    if kinds == {bool}:
        return switch
    if kinds == {int}:
        return integer(
            minimum=None if low is None else int(low), maximum=None if high is None else int(high)
        )
    if kinds == {float}:
        return number(minimum=low, maximum=high, above=above)
    return text


def _bound(info: FieldInfo, kind: type[annotated_types.BaseMetadata], name: str) -> float | None:
    found = next((getattr(m, name) for m in info.metadata if isinstance(m, kind)), None)
    return None if found is None else float(found)
