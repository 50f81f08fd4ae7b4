"""A large world's objects are kept out of the garbage collector's scans; a small one's not."""

from __future__ import annotations

import gc

from mcp_sim.runtime.long_lived import LARGE_STATE_CHARS, keep_out_of_scans


def test_a_small_state_leaves_the_collector_as_it_is() -> None:
    frozen = gc.get_freeze_count()
    assert not keep_out_of_scans(LARGE_STATE_CHARS - 1)
    assert gc.get_freeze_count() == frozen


def test_a_large_state_moves_the_objects_alive_out_of_the_scans() -> None:
    kept = [{"record": i} for i in range(1000)]
    try:
        assert keep_out_of_scans(LARGE_STATE_CHARS)
        assert gc.get_freeze_count() >= len(kept)
    finally:
        gc.unfreeze()
