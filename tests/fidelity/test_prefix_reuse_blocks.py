"""What a vLLM server serves of a shared prefix: whole blocks, and for a hybrid model only from
the checkpoints where it kept its linear layers' state (mcp_sim.fidelity.prefix_reuse)."""

from __future__ import annotations

from mcp_sim.fidelity.prefix_reuse import BlockCache, CallReuse, PrefixReuse, Reuse


def test_a_plain_model_serves_whole_blocks_never_the_last_token() -> None:
    cache = BlockCache(16)
    assert cache.served("e", 0, 500) == 0
    assert cache.served("e", 100, 500) == 96
    # The whole prompt shared: its last token is computed, so its block is too.
    assert cache.served("e", 640, 640) == 624
    assert cache.served("e", 15, 500) == 0


def test_a_hybrid_model_serves_up_to_the_previous_prompts_last_whole_block() -> None:
    cache = BlockCache(1000, hybrid=True)
    cache.served("e", 0, 2500)  # keeps its state at 2000, the last block before its end
    # The next prompt shares 2300 tokens: the checkpoint at 2000 lies inside them.
    assert cache.served("e", 2300, 4000) == 2000


def test_a_hybrid_model_lags_a_call_when_the_closing_crosses_a_block() -> None:
    cache = BlockCache(1000, hybrid=True)
    cache.served("e", 0, 2100)  # checkpoint 2000, past the 1950 the next prompt shares
    # No checkpoint inside the shared part: nothing served, though 1000 tokens of whole
    # attention blocks match; the request pins that junction for the requests after it.
    assert cache.served("e", 1950, 3600) == 0
    # That request's own checkpoint (3000) lies inside the 3400 the next one shares.
    assert cache.served("e", 3400, 5000) == 3000
    # Here the previous checkpoint (4000) lies past the shared 3900: the junction pinned by the
    # request before (3000) serves.
    assert cache.served("e", 3900, 6000) == 3000


def test_the_junction_serves_the_call_after_next() -> None:
    cache = BlockCache(1000, hybrid=True)
    cache.served("e", 0, 2100)
    assert cache.served("e", 1950, 3100) == 0  # pins 1000; its own checkpoint is 3000
    assert cache.served("e", 2950, 4500) == 1000


def test_a_retention_interval_keeps_the_state_at_every_interval() -> None:
    cache = BlockCache(1000, hybrid=True, interval=1000)
    cache.served("e", 0, 2100)
    assert cache.served("e", 1950, 3600) == 1000


def test_episodes_keep_their_own_checkpoints() -> None:
    cache = BlockCache(1000, hybrid=True)
    cache.served("a", 0, 2500)
    cache.served("b", 0, 900)
    assert cache.served("a", 2300, 3000) == 2000
    assert cache.served("b", 2300, 3000) == 0


def test_reuse_rows_report_served_shares_and_recomputed_tokens() -> None:
    reuse = Reuse()
    reuse.add(CallReuse(80, 100, 900, 1000, {"plain": 896, "hybrid": 0}))
    reuse.add(CallReuse(90, 100, 1900, 2000, {"plain": 1888, "hybrid": 1056}))
    row = reuse.row()
    assert row["reuse_tokens"] == 2800 / 3000
    assert row["reuse_plain_blocks"] == (896 + 1888) / 3000
    assert row["reuse_hybrid_blocks"] == 1056 / 3000
    assert row["recomputed_tokens_mean"] == 100
    assert row["recomputed_hybrid_mean"] == (1000 + 944) / 2
    assert row["recomputed_hybrid_p95"] == 1000
    merged = Reuse()
    merged.merge(reuse)
    assert merged.row() == row


def test_prefix_reuse_counts_each_later_call_at_both_granularities() -> None:
    reuse = PrefixReuse(plain_block=4, hybrid_block=64)
    system = {"role": "system", "content": "The world. " * 200}
    first = [system, {"role": "user", "content": "### Turn 1\nlook\n\nAnswer now."}]
    assert reuse.add("e", first, "seen") is None
    second = [
        system,
        {"role": "user", "content": "### Turn 1\nlook"},
        {"role": "assistant", "content": "seen"},
        {"role": "user", "content": "### Turn 2\nlook again\n\nAnswer now."},
    ]
    call = reuse.add("e", second, "seen again")
    assert call is not None
    assert call.served["plain"] <= call.tokens_shared < call.tokens
    assert call.tokens_shared - call.served["plain"] < 4
    assert call.served["hybrid"] % 64 == 0 and call.served["hybrid"] <= call.served["plain"]
    summary = reuse.summary()
    assert summary["blocks"] == {"plain": 4, "hybrid": 64, "hybrid_dense": 64}
    assert summary["recomputed_plain_mean"] == call.tokens - call.served["plain"]
