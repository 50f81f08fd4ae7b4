"""Write docs/settings.md, the reference of every setting, from the settings' declarations
(mcp_sim/settings): its flag, its MCP_SIM_ variable, its config-file key, its default and
what it does. A test fails when the committed page and the declarations differ.

    python scripts/settings_reference.py            # rewrite docs/settings.md
    python scripts/settings_reference.py --check    # exit 1 if it is out of date
"""

from __future__ import annotations

import sys
from pathlib import Path

from mcp_sim.settings.combined import GROUP_TITLES, GROUPS, each_setting
from mcp_sim.settings.declare import Declared
from mcp_sim.settings.sources import CONFIG_ENV

PAGE = Path(__file__).resolve().parent.parent / "docs" / "settings.md"

INTRO = f"""# Settings

<!-- Written by scripts/settings_reference.py from mcp_sim/settings: do not edit by hand. -->

Every option of mcp-sim is declared once, in `mcp_sim/settings`, and can be given four ways:

- a flag of the commands that take it (`--history-budget 3000`);
- an environment variable, `MCP_SIM_` and the name in capitals (`MCP_SIM_HISTORY_BUDGET=3000`;
  a list as a comma list: `MCP_SIM_MODEL_URL=http://a:8000/v1,http://b:8000/v1`; yes/no as
  `true`/`false`);
- a key of a TOML config file given by `--config FILE` or `${CONFIG_ENV}`, at the top or in one
  table (`history_budget = 3000`, or `[prompt]` then `history_budget = 3000`; dashes or
  underscores);
- in Python, by the same name: `Worlds.open("shop.yaml", history_budget=3000)` or
  `Settings.of(history_budget=3000)`.

Flags win over variables, variables over the file, the file over the defaults. A config file
may hold settings a command does not take (one file for `serve` and `call`); a name no setting
has is an error. `mcp-sim serve ... --print-config` (any command with settings) prints the
merged result as a config file, each value with where it came from, secrets masked.
Defaults marked *embedded* apply when the embedded tiny model answers and the setting was given
nowhere.
"""


def _default(setting: Declared) -> str:
    default = setting.default
    shown = "none" if default in (None, []) else f"`{default}`"
    if setting.flag.has_embedded_default:
        shown += f" (embedded: `{setting.flag.embedded}`)"
    return shown


def _flag(setting: Declared) -> str:
    flag = setting.option
    if setting.flag.negatable:
        return f"`{flag}` / `--no-{flag[2:]}`"
    return f"`{flag} {setting.flag.metavar}`" if setting.flag.metavar else f"`{flag}`"


def render() -> str:
    lines = [INTRO]
    current = ""
    for group, setting in each_setting():
        if group != current:
            doc = (GROUPS[group].__doc__ or "").split("\n\n")[0]
            lines += [
                f"\n## {GROUP_TITLES[group].capitalize()} (`{group}`)\n",
                " ".join(doc.split()) + "\n",
                "| flag | variable | default | meaning |",
                "| --- | --- | --- | --- |",
            ]
            current = group
        meaning = setting.flag.help.replace("|", "\\|")
        lines.append(f"| {_flag(setting)} | `{setting.env}` | {_default(setting)} | {meaning} |")
    return "\n".join(lines) + "\n"


def main(argv: list[str]) -> int:
    text = render()
    if "--check" in argv:
        if PAGE.read_text(encoding="utf-8") != text:
            print(
                f"{PAGE} is out of date: run python scripts/settings_reference.py", file=sys.stderr
            )
            return 1
        return 0
    PAGE.write_text(text, encoding="utf-8")
    print(f"wrote {PAGE}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
