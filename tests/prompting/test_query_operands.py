"""A query string read as operands by its structure, whatever its language: fields with
operators and values, ranges, negations, graph-pattern triples and free terms, with the
syntax left out; and what is no query stays a plain value."""

from __future__ import annotations

from mcp_sim.prompting.query_operands import Operand
from mcp_sim.prompting.query_operands import query_operands as read


def query_operands(text: str) -> list[Operand] | None:
    found = read(text)
    return None if found is None else list(found)


def test_a_mail_search_gives_fields_values_and_negations() -> None:
    found = query_operands('from:alice@x.org subject:"quarterly report" after:2024/01/01 -in:trash')
    assert found == [
        Operand("from", "match", "alice@x.org"),
        Operand("subject", "match", "quarterly report"),
        Operand("after", "match", "2024-01-01"),
        Operand("in", "ne", "trash"),
    ]


def test_qualifiers_with_bounds_and_free_words() -> None:
    found = query_operands("repo:acme/api is:open created:<=2025-01-25 crash NOT label:bug")
    assert found == [
        Operand("repo", "match", "acme/api"),
        Operand("is", "match", "open"),
        Operand("created", "max", "2025-01-25"),
        Operand("", "text", "crash"),
        Operand("label", "ne", "bug"),
    ]


def test_comparisons_words_and_ranges() -> None:
    jql = 'project = ABC AND status = "In Progress" AND assignee = currentUser()'
    assert query_operands(jql) == [
        Operand("project", "eq", "ABC"),
        Operand("status", "eq", "In Progress"),
    ]
    assert query_operands("Price gt 20 and Category eq 'Books'") == [
        Operand("Price", "min", "20"),
        Operand("Category", "eq", "Books"),
    ]
    assert query_operands("status:active AND price:[10 TO 20]") == [
        Operand("price", "min", "10"),
        Operand("price", "max", "20"),
        Operand("status", "match", "active"),
    ]


def test_a_metrics_selector_gives_its_name_labels_and_regexes() -> None:
    found = query_operands('rate(http_requests_total{job="api",code=~"5..",env=~"a|b"}[5m])')
    assert found == [
        Operand("", "eq", "http_requests_total"),
        Operand("job", "eq", "api"),
        Operand("code", "prefix", "5"),
        Operand("env", "eq", ["a", "b"]),
    ]
    # A call over label names gives no value.
    joined = query_operands('up{job="api"} * on(instance) group_left(version) build_info')
    assert joined == [
        Operand("", "eq", "up"),
        Operand("job", "eq", "api"),
        Operand("", "eq", "build_info"),
    ]


def test_a_graph_pattern_reads_each_triple_as_its_predicate_and_object() -> None:
    sparql = """SELECT ?item ?itemLabel WHERE {
      ?item wdt:P31 wd:Q5 ; wdt:P27 wd:Q30 .
      wd:Q42 wdt:P108 ?employer .
      FILTER(YEAR(?born) >= 1950)
      SERVICE wikibase:label { bd:serviceParam wikibase:language "en". }
    } ORDER BY DESC(?born)"""
    found = query_operands(sparql) or []
    assert Operand("P31", "match", "Q5") in found
    assert Operand("P27", "match", "Q30") in found
    assert Operand("", "literal", "Q42") in found  # a subject written out names a record
    assert Operand("born", "min", "1950") in found
    assert not any(o.field == "P108" for o in found)  # its object is a variable
    assert Operand("", "literal", "en") in found  # a literal constrains no field


def test_plain_values_are_no_queries() -> None:
    for text in (
        "wd:Q5",
        "label:travel",
        "2025-12-01T06:15:00Z",
        "https://x.org/a?b=c",
        "GRA12/AMB2452",
        "hello world",
        "Re: Kickoff notes",
        "10.0.2.16:9100",
        "Mon, 17 Mar 2025 04:30:00 -0500",
    ):
        assert query_operands(text) is None, text
    # A selector in braces is one, even with one operand.
    assert query_operands('{job="api"}') == [Operand("job", "eq", "api")]


def test_a_sql_statements_bare_words_are_names_not_words_to_find() -> None:
    sql = "select o.title, a.name from objects o join artists a on a.id = o.artist_id "
    sql += "where a.nationality = 'British' and o.year >= 1939 order by o.year limit 20"
    assert read(sql) == (
        Operand("a.id", "eq", "o.artist_id"),
        Operand("a.nationality", "eq", "British"),
        Operand("o.year", "min", "1939"),
    )
    # One comparison is a query too: the statement's other words are no terms beside it.
    assert read("select * from books where author = 'Le Guin'") == (
        Operand("author", "eq", "Le Guin"),
    )


def test_redisearch_tags_ranges_negations_and_prefixes() -> None:
    found = query_operands("@country:{SE|NO} @level:[20 (40] -@platform:{ps5} @name:ana*")
    assert found == [
        Operand("level", "min", "20"),
        Operand("level", "max", "40"),
        Operand("country", "eq", ["SE", "NO"]),
        Operand("platform", "ne", "ps5"),
        Operand("name", "prefix", "ana"),
    ]
    # One field marked ``@`` is a query; an open end bounds nothing.
    assert query_operands("@level:[(10 +inf]") == [Operand("level", "min", "10")]
    assert query_operands("@guild_id:{7}") == [Operand("guild_id", "eq", "7")]


def test_values_joined_by_commas_are_any_of_them() -> None:
    found = query_operands("traction:electric,steam -livery:red,blue speed:<=90")
    assert found == [
        Operand("traction", "eq", ["electric", "steam"]),
        Operand("livery", "ne", ["red", "blue"]),
        Operand("speed", "max", "90"),
    ]
    assert query_operands('from:"Smith, John" is:open') == [
        Operand("from", "match", "Smith, John"),
        Operand("is", "match", "open"),
    ]


def test_a_quoted_value_followed_by_a_star_is_a_prefix() -> None:
    found = query_operands('label:"Onyx "* grape:pinot litres:<=442')
    assert found == [
        Operand("label", "prefix", "Onyx"),
        Operand("grape", "match", "pinot"),
        Operand("litres", "max", "442"),
    ]
    assert query_operands('title:"Onyx Vale" b:c') == [
        Operand("title", "match", "Onyx Vale"),
        Operand("b", "match", "c"),
    ]
