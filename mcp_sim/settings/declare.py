"""How a setting is declared: once, as a field of a settings model, with its default, its
constraints (pydantic's), its help, and what the command line, the environment and config
files call it.

    history_budget: Annotated[int, Field(ge=1), Flag("TOKENS", "compact the history ...",
                                                     embedded=3000)] = 16_000

The flag is the field's name with dashes (``--history-budget``), the environment variable
``MCP_SIM_`` and the name in capitals (``MCP_SIM_HISTORY_BUDGET``), the config file's key the
name itself; the CLI's parser (:mod:`mcp_sim.cli.settings_flags`) and the readers of
:mod:`mcp_sim.settings.sources` are generated from these declarations, so adding a setting is
adding one field.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel
from pydantic.fields import FieldInfo

ENV_PREFIX = "MCP_SIM_"

_UNSET: Any = object()


@dataclass(frozen=True)
class Flag:
    """What a settings field is called outside Python, and how text becomes its value.

    ``parse`` reads one value typed on the command line or held in an environment variable
    (raising ``argparse.ArgumentTypeError`` with what was expected); without it, the field's
    type and constraints say how (see :func:`mcp_sim.settings.values.for_field`). ``embedded``
    is the default when the embedded tiny model answers. ``secret`` values are masked when
    settings are printed. ``negatable`` booleans get a ``--no-NAME`` twin."""

    metavar: str | None
    help: str
    parse: Callable[[str], Any] | None = None
    embedded: Any = _UNSET
    secret: bool = False
    env: str | None = None
    """An environment variable other than ``MCP_SIM_NAME`` (kept for names users already set)."""
    negatable: bool = False

    @property
    def has_embedded_default(self) -> bool:
        return self.embedded is not _UNSET


@dataclass(frozen=True)
class Declared:
    """One settings field with its declaration: ``group`` is the settings model it is in."""

    name: str
    group: type[BaseModel]
    info: FieldInfo
    flag: Flag

    @property
    def option(self) -> str:
        return "--" + self.name.replace("_", "-")

    @property
    def env(self) -> str:
        return self.flag.env or ENV_PREFIX + self.name.upper()

    @property
    def repeated(self) -> bool:
        """A list: the flag may be given several times, the variable holds a comma list."""
        return getattr(self.info.annotation, "__origin__", None) is list

    @property
    def is_switch(self) -> bool:
        return self.info.annotation is bool

    @property
    def default(self) -> Any:
        return self.info.get_default(call_default_factory=True)


def flag_of(info: FieldInfo) -> Flag | None:
    return next((m for m in info.metadata if isinstance(m, Flag)), None)


def declared(group: type[BaseModel]) -> Iterator[Declared]:
    """The fields of ``group`` that carry a :class:`Flag`, in declaration order."""
    for name, info in group.model_fields.items():
        flag = flag_of(info)
        if flag is not None:
            yield Declared(name, group, info, flag)
