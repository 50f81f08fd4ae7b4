"""The settings a workbench is served with from Python, as ``mcp-sim ui`` serves it: at its
address and never without a token."""

from __future__ import annotations

from mcp_sim.settings import Settings
from mcp_sim.ui.workbench_serving import workbench_settings


def test_a_workbench_is_served_at_its_address_behind_a_token() -> None:
    made = workbench_settings(Settings.of(seed=3), ("127.0.0.1", 8780))
    assert made.server.http == ("127.0.0.1", 8780) and made.sampling.seed == 3
    assert made.server.auth_token and len(made.server.auth_token) >= 24
    other = workbench_settings(Settings(), ("127.0.0.1", 8780))
    assert other.server.auth_token != made.server.auth_token  # made up afresh each time
    mine = workbench_settings(Settings.of(auth_token="designer"), ("::1", 9000))
    assert (mine.server.auth_token, mine.server.http) == ("designer", ("::1", 9000))
