"""The sample of a state that the detectors of its forms share: containers breadth first,
up to a bound of objects, so that every collection is sampled before any is exhausted."""

from __future__ import annotations

from mcp_sim.runtime.state_sample import SAMPLED_NODES, sampled


def test_containers_come_breadth_first_and_scalars_not_at_all() -> None:
    state = {"a": [{"x": 1}, {"x": 2}], "b": {"c": [3]}, "d": "text"}
    order = list(sampled(state))
    assert order == [state, state["a"], state["b"], {"x": 1}, {"x": 2}, [3]]


def test_the_sample_ends_after_its_bound_of_objects() -> None:
    rows = [[{"n": n} for n in range(256)] for _ in range(256)]
    nodes = list(sampled({"rows": rows}))
    assert sum(isinstance(node, dict) for node in nodes) == SAMPLED_NODES
    # The state, its array of rows and the first 256 rows (as many items as are sampled).
    assert sum(isinstance(node, list) for node in nodes) == 1 + 256
    assert nodes[-1] == {"n": (SAMPLED_NODES - 2) % 256}
