"""``mcp-sim harness inspect``: the Inspect task module written for a world. The module runs
against inspect-ai in tests/e2e/test_harness_examples.py; here it is read as Python source, which
needs no inspect-ai."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from mcp_sim.cli.main import main
from mcp_sim.harness.inspect_shim import inspect_task_source
from mcp_sim.spec.verify import Task
from mcp_sim.spec.world import World
from tests.conftest import WORLDS


def module_values(source: str) -> tuple[dict[str, object], list[str]]:
    """The module's constants (literals assigned at the top level) and its task functions."""
    tree = ast.parse(source)
    constants: dict[str, object] = {}
    tasks: list[str] = []
    for node in tree.body:
        if isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name):
            try:
                constants[node.targets[0].id] = ast.literal_eval(node.value)
            except ValueError:
                constants[node.targets[0].id] = ast.unparse(node.value)
        elif isinstance(node, ast.FunctionDef) and any(
            isinstance(d, ast.Name) and d.id == "task" for d in node.decorator_list
        ):
            tasks.append(node.name)
    return constants, tasks


def test_the_module_names_the_world_and_holds_its_tasks_word_for_word(
    bookstore: World,
) -> None:
    source = inspect_task_source(
        bookstore, world_file="worlds/bookstore.yaml", server_url="http://gpu:9000"
    )
    constants, tasks = module_values(source)
    assert constants["WORLD"] == "paperlane-books" and tasks == ["paperlane_books"]
    assert constants["SERVER_URL"] == "os.environ.get('MCP_SIM_URL', 'http://gpu:9000')"
    assert constants["TASKS"] == {
        name: " ".join(task.description.split()) for name, task in bookstore.verify.items()
    }
    assert "mcp-sim serve worlds/bookstore.yaml --http gpu:9000" in source


def test_awkward_names_and_descriptions_stay_valid_python(bookstore: World) -> None:
    check = bookstore.verify["gift-order"].checks[0]
    quoted = 'Say "feito" \\ then stop, José. ' + "Then wait for the customer, " * 8
    world = bookstore.model_copy(
        update={
            "world": "in_episode",
            "verify": {
                "quoted": Task(description=quoted, checks=[check]),
                "bare": Task(checks=[check]),
            },
        }
    )
    source = inspect_task_source(world, world_file="w.yaml", server_url="http://127.0.0.1:8765")
    constants, tasks = module_values(source)
    assert tasks == ["in_episode_"]
    assert constants["TASKS"] == {"quoted": " ".join(quoted.split()), "bare": "bare"}
    assert "José" in source
    assert max(len(line) for line in source.splitlines()[1:]) <= 100


def test_a_world_without_tasks_has_nothing_to_score(bookstore: World) -> None:
    with pytest.raises(ValueError, match="no verify tasks"):
        inspect_task_source(
            bookstore.model_copy(update={"verify": {}}),
            world_file="w.yaml",
            server_url="http://127.0.0.1:8765",
        )


def test_the_command_writes_the_module_and_refuses_a_world_without_tasks(
    tmp_path: Path, bookstore: World, capsys: pytest.CaptureFixture[str]
) -> None:
    output = tmp_path / "tasks" / "bookstore_eval.py"
    world_file = WORLDS / "bookstore.yaml"
    assert main(["harness", "inspect", str(world_file), "-o", str(output)]) == 0
    assert output.read_text(encoding="utf-8") == inspect_task_source(
        bookstore,
        world_file=world_file.as_posix(),
        server_url="http://127.0.0.1:8765",
        file_name="bookstore_eval.py",
    )
    with pytest.raises(SystemExit) as refused:
        main(["harness", "inspect", str(WORLDS / "os.yaml")])
    assert refused.value.code == 2
    assert "has no verify tasks" in capsys.readouterr().err
