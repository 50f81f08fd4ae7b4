"""What ``mcp-sim engine status`` prints, from Python: what is installed and cached, and
whether the background engine runs."""

from __future__ import annotations

from pathlib import Path

from mcp_sim.engine.background import engine_report
from mcp_sim.engine.install_state import engine_status


def test_the_report_is_the_install_state_and_whether_the_engine_runs(tmp_path: Path) -> None:
    home = tmp_path / "home"
    report = engine_report(home)
    assert report["running"] == {"state": "stopped"}
    assert {k: v for k, v in report.items() if k != "running"} == engine_status(home)
