"""``mcp-sim harness trl WORLD``: a TRL ``environment_factory`` class for a world, as Python
source. One typed method per tool, with a Google-style docstring, which is what TRL's
``GRPOTrainer`` reads (through transformers' ``get_json_schema``) to show the model its tools;
``reset`` and ``get_reward`` come from :class:`mcp_sim.api.environment.EpisodeEnvironment`.
"""

from __future__ import annotations

import json
from typing import Any

from mcp_sim.harness.python_names import annotation, class_name, describe, python_name
from mcp_sim.spec.world import ToolSpec, World

RESERVED = frozenset({"reset", "get_reward"})
"""Names TRL does not offer as tools; a tool named so gets a ``_`` after it."""


def trl_environment_source(world: World, world_file: str, model_url: str | None) -> str:
    """The module: the world's environment class, bound to ``world_file`` (a path relative
    to the module's folder) and to the model at ``$MCP_SIM_MODEL_URL`` (``model_url`` when
    that is unset)."""
    name = class_name(world.world)
    methods: list[str] = []
    taken = set(RESERVED)
    for tool in world.tools:
        method = python_name(tool.name, taken)
        taken.add(method)
        methods.append(_method(tool, method))
    tasks = ", ".join(world.verify) or "none"
    return "\n".join(
        [
            f'"""A TRL environment for the mcp-sim world {world.world!r} ({world_file} from',
            "this file), written by `mcp-sim harness trl`.",
            "",
            "    from trl import GRPOTrainer",
            f"    trainer = GRPOTrainer(..., environment_factory={name})",
            "",
            "Each instance is one rollout's episode; reset(**row) starts a new one, scored by",
            f"get_reward() on the row's `task` (this world's: {tasks}), seeded by its `seed`. The",
            "world model is the OpenAI-compatible server at $MCP_SIM_MODEL_URL.",
            '"""',
            "",
            "from __future__ import annotations",
            "",
            "import os",
            "from pathlib import Path",
            *(["from typing import Any"] if any("Any" in m for m in methods) else []),
            "",
            "from mcp_sim.api.environment import EpisodeEnvironment",
            "",
            "",
            f"class {name}(EpisodeEnvironment):",
            f"    {_docstring(world.title)}",
            "",
            f"    world_file = str(Path(__file__).resolve().parent / {_literal(world_file)})",
            f'    model_url = os.environ.get("MCP_SIM_MODEL_URL", {_literal(model_url)})',
            *methods,
            "",
        ]
    )


def _docstring(text: str) -> str:
    line = " ".join(text.split()).replace("\\", "\\\\").replace('"""', "'''")
    return f'"""{line}"""'


def _method(tool: ToolSpec, method: str) -> str:
    properties: dict[str, Any] = tool.input_schema.get("properties") or {}
    required = set(tool.input_schema.get("required") or [])
    taken = {"self"}
    params: list[tuple[str, str, Any]] = []
    for argument, schema in properties.items():
        python = python_name(argument, taken)
        taken.add(python)
        params.append((argument, python, schema))
    # Required parameters first: Python wants defaults last.
    params.sort(key=lambda p: p[0] not in required)
    signature = ["self"]
    for argument, python, schema in params:
        if argument in required:
            signature.append(f"{python}: {annotation(schema)}")
        else:
            signature.append(f"{python}: {annotation(schema)} | None = None")
    summary = " ".join(tool.description.split()) or f"Call {tool.name}."
    lines = [
        "",
        f"    def {method}({', '.join(signature)}) -> str:",
        f'        """{_escaped(summary)}',
    ]
    if params:
        lines += ["", "        Args:"]
        lines += [f"            {p}: {_escaped(describe(a, s))}" for a, p, s in params]
    lines.append('        """')
    passed = [f"{_literal(argument)}: {python}" for argument, python, _ in params]
    call = f"        return self._call({_literal(tool.name)}, {{{', '.join(passed)}}})"
    if len(call) > 100:
        lines.append(
            f"        return self._call(\n            {_literal(tool.name)},\n            {{"
        )
        lines += [f"                {p}," for p in passed]
        lines += ["            },", "        )"]
    else:
        lines.append(call)
    return "\n".join(lines)


def _literal(value: str | None) -> str:
    """``value`` as a Python literal in double quotes (JSON's string syntax is Python's)."""
    return "None" if value is None else json.dumps(value)


def _escaped(text: str) -> str:
    return text.replace("\\", "\\\\").replace('"""', "'''")
