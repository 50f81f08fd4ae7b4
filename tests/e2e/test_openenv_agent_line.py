"""openenv-core's own client (installed from PyPI into its own venv) against ``serve
--openenv``: the rewards of a 5-step ``every_step`` episode add up to the final verdict, a step
after done raises the client's server error, and nothing the client is given (observations,
tools, state) carries a secret of the world."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from tests.e2e.harness_venvs import OPENENV, harness_python
from tests.processes import DEAD_MODEL, serving_http
from tests.server.test_agent_view import SECRET, VAULT
from tests.server.test_openenv import FIVE_STEPS

pytestmark = pytest.mark.harness

CLIENT = """
import asyncio, json, sys

from openenv.core.env_server.mcp_types import CallToolAction
from openenv.core.mcp_client import MCPToolClient


async def main(base_url):
    seen = []
    async with MCPToolClient(base_url=base_url) as env:
        seen.append(repr(await env.reset(world="five-steps", task="five")))
        steps = []
        for name in "abcde":
            steps.append(await env.step(CallToolAction(tool_name=name, arguments={})))
        seen += [repr(step) for step in steps]
        total = 0.0
        for step in steps:  # a harness's running return
            total += step.reward
        try:
            await env.step(CallToolAction(tool_name="a", arguments={}))
            refused = None
        except RuntimeError as exc:
            refused = str(exc)
        final = steps[-1].observation.metadata["verdict"]["reward"]
        seen.append(repr(await env.reset(world="vault-desk", task="audit")))
        seen.append(repr(await env.list_tools()))
        looked = await env.step(CallToolAction(tool_name="lookup", arguments={"id": "acc-1"}))
        seen += [repr(looked), repr(await env.state())]
    print(json.dumps({"rewards": [s.reward for s in steps], "total": total, "final": final,
                      "done": [s.done for s in steps], "refused": refused, "seen": seen}))


asyncio.run(main(sys.argv[1]))
"""


def test_openenv_core_sums_every_step_rewards_to_the_verdict_and_sees_no_secret(
    tmp_path: Path,
) -> None:
    python = harness_python("openenv", OPENENV)
    (tmp_path / "five.yaml").write_text(FIVE_STEPS, encoding="utf-8")
    (tmp_path / "vault.yaml").write_text(VAULT, encoding="utf-8")
    (tmp_path / "client.py").write_text(CLIENT, encoding="utf-8")
    files = (tmp_path / "five.yaml", str(tmp_path / "vault.yaml"))
    with serving_http(*files, "--openenv", *DEAD_MODEL, log=tmp_path / "serve.log") as url:
        done = subprocess.run(
            [str(python), str(tmp_path / "client.py"), url.removesuffix("/mcp")],
            capture_output=True,
            text=True,
            timeout=120,
        )
    assert done.returncode == 0, done.stderr
    got = json.loads(done.stdout)
    assert got["done"] == [False, False, False, False, True]
    assert got["final"] == 0.625 and got["total"] == got["final"]
    assert got["refused"].startswith("Server error: episode ")
    assert got["refused"].endswith("is done: reset to start another (code: EXECUTION_ERROR)")
    assert "account acc-1 is open" in got["seen"][-2]
    assert [text for text in got["seen"] if SECRET in text] == []
