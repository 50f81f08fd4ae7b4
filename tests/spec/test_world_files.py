"""Where world files are: a folder's world files, and the example worlds shipped with mcp-sim."""

from __future__ import annotations

from pathlib import Path

from mcp_sim.spec.world_files import example_names, example_of, example_path, world_files_in


def test_a_folder_holds_its_world_files_by_suffix_sorted(tmp_path: Path) -> None:
    for name in ("b.yml", "a.yaml", "c.json", "notes.txt"):
        (tmp_path / name).write_text("{}", encoding="utf-8")
    (tmp_path / "inner.yaml").mkdir()
    assert world_files_in(tmp_path) == [tmp_path / n for n in ("a.yaml", "b.yml", "c.json")]


def test_an_example_is_known_by_its_file(tmp_path: Path) -> None:
    assert "bookstore" in example_names()
    assert example_of(example_path("bookstore")) == "bookstore"
    assert example_of(tmp_path / "bookstore.yaml") is None
