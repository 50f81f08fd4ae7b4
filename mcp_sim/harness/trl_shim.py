"""``mcp-sim harness trl WORLD``: a TRL ``environment_factory`` class for a world, as Python
source, and its task dataset. One typed async method per tool, with a Google-style docstring,
which is what TRL's ``GRPOTrainer`` reads (through transformers' ``get_json_schema``) to show
the model its tools; ``reset`` and ``get_reward`` come from
:class:`mcp_sim.api.environment.EpisodeEnvironment`. The class names an example world by name
and embeds any other world file, so it runs wherever mcp-sim is installed, without the file.
"""

from __future__ import annotations

import json
from typing import Any

from mcp_sim.harness.python_names import annotation, class_name, describe, python_name
from mcp_sim.spec.world import ToolSpec, World

RESERVED = frozenset({"reset", "get_reward"})
"""Names TRL does not offer as tools; a tool named so gets a ``_`` after it."""


def trl_environment_source(
    world: World, model_url: str | None, *, example: str | None = None, yaml_text: str | None = None
) -> str:
    """The module: the world's environment class, bound to the example world ``example`` (by
    name, found in the installed mcp-sim) or to ``yaml_text`` (the world file's text, embedded),
    and to the model at ``$MCP_SIM_MODEL_URL`` (``model_url`` when that is unset)."""
    if (example is None) == (yaml_text is None):
        raise ValueError("name the world by example or embed its text, one of the two")
    name = class_name(world.world)
    methods: list[str] = []
    taken = set(RESERVED)
    for tool in world.tools:
        method = python_name(tool.name, taken)
        taken.add(method)
        methods.append(_method(tool, method))
    if yaml_text is not None:
        where, bound = "embedded below", f"    world_yaml = {WORLD_YAML}"
    else:
        where, bound = f"the example {example}", f"    world_example = {_literal(example)}"
    return "\n".join(
        [
            *_module_docstring(world, name, where),
            "",
            "from __future__ import annotations",
            "",
            "import os",
            *(["from typing import Any"] if any("Any" in m for m in methods) else []),
            "",
            "from mcp_sim.api.environment import EpisodeEnvironment",
            "",
            *([f"{WORLD_YAML} = {_yaml_literal(yaml_text)}", ""] if yaml_text is not None else []),
            "",
            f"class {name}(EpisodeEnvironment):",
            f"    {_docstring(world.title)}",
            "",
            bound,
            f'    model_url = os.environ.get("MCP_SIM_MODEL_URL", {_literal(model_url)})',
            *methods,
            "",
        ]
    )


WORLD_YAML = "WORLD_YAML"
"""The module-level name of an embedded world file's text."""


def _module_docstring(world: World, name: str, bound: str) -> list[str]:
    tasks = ", ".join(world.verify) or "none"
    return [
        f'"""A TRL environment for the mcp-sim world {world.world!r} ({bound}), written by',
        "`mcp-sim harness trl`.",
        "",
        "    from trl import GRPOTrainer",
        f"    trainer = GRPOTrainer(..., train_dataset=rows, environment_factory={name})",
        "",
        "Each instance is one rollout's episode. reset(**row) starts a new one on the row's",
        f"`task` (this world's: {tasks}; without a task column, one chosen by the row's",
        "prompt), seeded by its `seed`; get_reward() is its verdict's reward, or None (which",
        "TRL leaves out) when the world model failed a call. The tools are coroutines: TRL runs",
        "the calls of one message at the same time. The world model is the OpenAI-compatible",
        "server at $MCP_SIM_MODEL_URL (stub: for a stand-in that only tests the wiring).",
        '"""',
    ]


def _yaml_literal(text: str) -> str:
    """``text`` as a raw triple-quoted literal where it can be one (it reads as the file
    does), else as a one-line string literal."""
    if '"""' in text or text.endswith(("\\", '"')) or "\r" in text:
        return _literal(text)
    return f'r"""{text}"""'


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
        f"    async def {method}({', '.join(signature)}) -> str:",
        f'        """{_escaped(summary)}',
    ]
    if params:
        lines += ["", "        Args:"]
        lines += [f"            {p}: {_escaped(describe(a, s))}" for a, p, s in params]
    lines.append('        """')
    passed = [f"{_literal(argument)}: {python}" for argument, python, _ in params]
    call = f"        return await self._call({_literal(tool.name)}, {{{', '.join(passed)}}})"
    if len(call) > 100:
        lines.append(
            f"        return await self._call(\n            {_literal(tool.name)},\n            {{"
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


def trl_dataset_rows(world: World) -> list[dict[str, Any]]:
    """A row per task of the world, as ``GRPOTrainer`` reads them: a conversational
    ``prompt`` (the task's description as the user's message) and the ``task`` column that
    ``reset`` and ``get_reward`` score by."""
    return [
        {"prompt": [{"role": "user", "content": task.description or name}], "task": name}
        for name, task in world.verify.items()
    ]
