"""Reading vLLM's prefix-cache counters from its ``/metrics`` page (benchmarks/engine_cache)."""

from __future__ import annotations

from benchmarks.engine_cache import cache_counters

METRICS = """\
# HELP vllm:prefix_cache_queries_total Prefix cache queries, in terms of number of queried tokens.
# TYPE vllm:prefix_cache_queries_total counter
vllm:prefix_cache_queries_total{engine="0",model_name="gemma3-270m"} 4096.0
vllm:prefix_cache_queries_total{engine="1",model_name="gemma3-270m"} 1024.0
# HELP vllm:prefix_cache_hits_total Prefix cache hits, in terms of number of cached tokens.
# TYPE vllm:prefix_cache_hits_total counter
vllm:prefix_cache_hits_total{engine="0",model_name="gemma3-270m"} 3.5e3
vllm:prefix_cache_hits_total{engine="1",model_name="gemma3-270m"} 500.0
vllm:external_prefix_cache_hits_total{engine="0",model_name="gemma3-270m"} 99.0
vllm:prefix_cache_hits_created{engine="0",model_name="gemma3-270m"} 1.7e9
"""


def test_counters_are_summed_over_engines_and_others_ignored() -> None:
    assert cache_counters(METRICS) == (5120.0, 4000.0)


def test_a_server_without_the_counters_reads_as_zero() -> None:
    assert cache_counters("# no metrics here\nvllm:num_requests_running 0\n") == (0.0, 0.0)
