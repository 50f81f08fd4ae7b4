"""The world designer's workbench (``mcp-sim ui``): a local web page on the episode API that
shows, for each call of an episode, what the model was shown, what it answered and what the
call did to the state.

:mod:`~mcp_sim.ui.call_traces` keeps each call's trace as the simulator finishes it,
:mod:`~mcp_sim.ui.prompt_sections` and :mod:`~mcp_sim.ui.state_diff` turn a trace into what the
page shows, :mod:`~mcp_sim.ui.world_files` keeps the served files and their problems, and
:mod:`~mcp_sim.ui.workbench_routes` serves the page and its API beside the episode API."""
