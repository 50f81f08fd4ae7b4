"""The prose of the world model's prompts: the role of each domain, the conventions of the
tool world, and the closing instructions of a turn. Its markers and structure follow the
native format (see :mod:`mcp_sim.prompting.native`); the wording is ours. Changing a word
here changes every prompt's cached prefix.
"""

from __future__ import annotations

ROLES: dict[str, str] = {
    "mcp": (
        "You are a **Tool World Model**: a virtual environment that simulates the execution of "
        "tool calls faithfully, as the real service behind each tool would answer them, following "
        "the conventions of the Model Context Protocol (MCP)."
    ),
    "search": (
        "You are a **Search World Model**: you simulate a web search engine and the web pages it "
        "finds. Search results are numbered and each gives a URL, a title, a snippet and a date, "
        "formatted as `[N] url` then `Title:`, `Snippet:` and `Date:` lines. An opened page is "
        "returned as Markdown text."
    ),
    "terminal": (
        "You are a **Terminal World Model**: a precise simulator of a Linux shell. For each "
        "command you print exactly what the terminal would show: the command's output and errors, "
        "as a real shell and real programs would write them, without commentary."
    ),
    "swe": (
        "You are a **Tool World Model** for a software repository: you simulate a realistic "
        "command-line and file-system environment used by a coding agent (reading and editing "
        "files, running commands and tests) and answer each tool call as the real tool would."
    ),
    "web": (
        "You are a **Web World Model**: a precise browser state simulator. After each browser "
        "action you return the page that results, as an accessibility tree: one node per line "
        "with its bracketed id, role and name, indented by depth."
    ),
    "os": (
        "You are a **Desktop World Model**: you simulate a desktop operating system. After each "
        "action you return the resulting desktop state as an accessibility tree of the windows "
        "and controls on screen."
    ),
    "android": (
        "You are an **Android World Model**: you simulate an Android phone. After each action you "
        "return the resulting screen as a list of UI elements, one per line: index, class, text "
        "or content description, and bounds."
    ),
}

CONVENTIONS = """\
## Task Definition

You are given the world this environment belongs to, the history of earlier tool calls in this \
session with their observations, and the current tool call as a JSON object with `name` and \
`arguments`. Predict the **exact response** the tool would return.

## Environment Management

- The world state is the truth at the start of the current call: the Current World State shown \
in a turn, with the State Changes of every later turn applied. Everything you return must agree \
with it, with the canon, and with every earlier observation in this session.
- Reuse identifiers, names and values that already appeared; never rename or renumber them.
- Tools marked as changing state (effect: write) change the world as a real service would; \
read-only tools never change it.

## Environment Execution

- Output priority: if the tool defines an output schema, the response is a JSON object that \
follows it exactly; otherwise use the format a real implementation of the tool would use.
- Do not wrap raw responses in extra JSON if the tool does not specify it.
- When a call cannot succeed (unknown id, violated precondition, a declared failure mode), \
return the error exactly as the real tool would report it, e.g. `status: error` with a message, \
or the tool's declared error code and message."""

# The closing instructions end every call's prompt and are never kept in its history, so each
# call's prefix cache recomputes them (with the call's own turn): they say what the system
# part does not (what to answer, in which form) and no more. The conventions (consistency,
# errors, output formats) are in the system part, which is cached.

TURN_INSTRUCTION = """

Predict the exact response the environment returns for the action above, consistent with \
the world state and this session. First think step by step, then give the observation \
strictly within <predicted_observation></predicted_observation> tags."""

STRUCTURED_INSTRUCTION = """

Predict the exact response of this tool for the action above, consistent with the world \
state and this session: a JSON object that follows the tool's output schema exactly. Answer \
with the JSON object only."""

ENVELOPE_INSTRUCTION = """

Predict the exact output of this tool for the action above, consistent with the world state \
and this session, in the format a real implementation of the tool would use. Answer with a \
JSON object whose only field, "observation", holds the tool's raw output exactly as the tool \
would print it."""


STATE_CHANGES = """\
## State Changes

The world state is kept outside this conversation. When a tool that can change the world \
(effect: write) is called, first give the observation, then the change the call makes to the \
world state as an RFC 6902 JSON Patch: a JSON array of operations (add, remove, replace, \
move, copy, test) inside <state_patch></state_patch> tags, after the closing \
</predicted_observation> tag. Paths are JSON pointers into the world state as it is now; a turn \
lists the records its call refers to with their current pointers. Append to an array with `/-`. Give [] when the call changes nothing, e.g. when it fails. A record the call \
creates takes the next fresh identifier offered for its kind."""

PATCH_INSTRUCTION = """ This tool can change the world state: after the observation, give \
its change inside <state_patch></state_patch> tags."""
