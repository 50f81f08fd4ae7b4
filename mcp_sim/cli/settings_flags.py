"""The command line's side of :mod:`mcp_sim.settings`: a command's flags generated from the
settings it takes, and its :class:`~mcp_sim.settings.Settings` read back from the flags given,
the environment and a config file, in that order of precedence.

Flags are added with no default (``argparse.SUPPRESS``), so a flag left out is absent from
the parsed namespace and a lower source (a variable, the file, the default) decides.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Collection
from typing import Any

from mcp_sim.cli.console import UsageError
from mcp_sim.errors import SettingsError
from mcp_sim.settings import values
from mcp_sim.settings.combined import GROUP_TITLES, SETTINGS, Settings, each_setting, group_names
from mcp_sim.settings.declare import Declared
from mcp_sim.settings.printing import render
from mcp_sim.settings.sources import CONFIG_ENV, gather, reader

SOURCES_NOTE = (
    "Every option below can also be set in the environment as MCP_SIM_NAME (e.g. "
    "MCP_SIM_HISTORY_BUDGET=3000; a list as a comma list) or in a TOML file given by --config "
    f"or ${CONFIG_ENV} (history_budget = 3000); flags win over variables, variables over the "
    "file."
)


SIMULATION = (*group_names("model", "sampling", "prompt", "perturb"),)
"""What every command that simulates calls takes: the model, its sampling, the prompt's
budgets and the perturbations."""

REBUILDING = (*group_names("model", "sampling", "prompt"), "cache", "journal_timing")
"""What the commands that rebuild prompts without serving take (eval, export, world new)."""


def add_settings(parser: argparse.ArgumentParser, names: Collection[str]) -> None:
    """Flags for the settings ``names`` (flat names, grouped in help by concern), plus
    ``--config`` and ``--print-config``."""
    sections: dict[str, argparse._ArgumentGroup] = {}
    for group, setting in each_setting():
        if setting.name not in names:
            continue
        if group not in sections:
            sections[group] = parser.add_argument_group(GROUP_TITLES[group])
        _add_flag(sections[group], setting)
    files = parser.add_argument_group("settings", SOURCES_NOTE)
    files.add_argument(
        "--config",
        type=values.existing_file("config file"),
        metavar="FILE",
        default=None,
        help=f"read settings from this TOML file (default: ${CONFIG_ENV}, if set)",
    )
    files.add_argument(
        "--print-config",
        action="store_true",
        help="print the settings as merged from the flags, environment and config file (as "
        "TOML, each with where it came from) and exit",
    )
    parser.set_defaults(
        settings_names=tuple(n for _, d in each_setting() if (n := d.name) in names)
    )


def _add_flag(section: argparse._ArgumentGroup, setting: Declared) -> None:
    flag = setting.flag
    default = setting.default
    shown = _shown_default(default, flag.embedded if flag.has_embedded_default else None)
    help_text = flag.help + (f" ({shown})" if shown else "")
    common: dict[str, Any] = {"dest": setting.name, "default": argparse.SUPPRESS}
    if flag.negatable:
        section.add_argument(
            setting.option, action=argparse.BooleanOptionalAction, help=help_text, **common
        )
    elif setting.is_switch:
        section.add_argument(setting.option, action="store_true", help=help_text, **common)
    else:
        section.add_argument(
            setting.option,
            action="append" if setting.repeated else "store",
            type=reader(setting),
            metavar=flag.metavar,
            help=help_text,
            **common,
        )


def _shown_default(default: object, embedded: object) -> str:
    if default in (None, [], False) and embedded is None:
        return ""
    if isinstance(default, int | float) and not isinstance(default, bool):
        text = f"default {default:g}"
    elif default is None:
        text = "default: none"
    else:
        text = f"default {default}"
    if embedded is not None:
        text += f"; {embedded} for the embedded model"
    return text.replace("default True", "default: on").replace("default False", "default: off")


def read_settings(args: argparse.Namespace) -> Settings:
    """The command's settings: its flags over ``MCP_SIM_*`` over the config file; a value
    that cannot be used is a usage error naming where it was given. With ``--print-config``
    they are printed and the command ends."""
    names: tuple[str, ...] = args.settings_names
    given = {n: (getattr(args, n), SETTINGS[n][1].option) for n in names if hasattr(args, n)}
    try:
        gathered = gather(names, given, args.config)
        settings = gathered.settings()
    except SettingsError as exc:
        raise UsageError(exc.source, exc.problem) from None
    if args.print_config:
        sys.stdout.write(render(settings, gathered.sources, names))
        raise SystemExit(0)
    return settings
