"""Reading one line of text as a record: SQL ``INSERT`` rows, ``CREATE TABLE`` columns,
delimited rows under a header, ``key=value`` lines, JSON lines."""

from __future__ import annotations

from mcp_sim.runtime.text_lines import (
    create_columns,
    delimited_record,
    header_names,
    insert_table,
    json_record,
    pairs_record,
    shaped,
    sql_record,
    sql_values,
    token_record,
    tokens,
)


def test_a_rows_values_are_typed_as_the_sql_literals_write_them() -> None:
    line = "INSERT INTO t VALUES(1,'O''Hara',NULL,2.5,-3,'',1e3,TRUE);"
    found = insert_table(line)
    assert found is not None and found[:2] == ("t", None)
    assert sql_values(line, found[2]) == [1, "O'Hara", None, 2.5, -3, "", 1000.0, "TRUE"]


def test_a_line_of_several_rows_or_no_closing_parenthesis_is_no_row() -> None:
    for line in ("INSERT INTO t VALUES(1,'x'),(2,'y');", "INSERT INTO t VALUES(1,'x'"):
        found = insert_table(line)
        assert found is not None and sql_values(line, found[2]) is None


def test_a_tables_columns_leave_its_constraints_and_quotes_out() -> None:
    line = 'CREATE TABLE "x" (id INTEGER PRIMARY KEY, "a b" TEXT, c NUMERIC(10,2), UNIQUE(c));'
    assert create_columns(line) == ("x", ("id", "a b", "c"))
    assert create_columns("CREATE INDEX i ON x(c);") is None


def test_an_insert_is_named_by_its_own_columns_or_its_tables() -> None:
    tables = {"t": ("id", "name")}
    assert sql_record("INSERT INTO t VALUES(7,'Ana');", tables) == ("t", {"id": 7, "name": "Ana"})
    named = "INSERT INTO [u] (k, v) VALUES ('a', 2);"
    assert sql_record(named, tables) == ("u", {"k": "a", "v": 2})
    assert sql_record("INSERT INTO t VALUES(7);", tables) is None  # not as wide as the table
    assert sql_record("INSERT INTO other VALUES(7,'x');", tables) is None  # no columns known


def test_delimited_rows_are_named_by_a_header_of_names() -> None:
    columns = header_names("id,name,city", ",")
    assert columns == ("id", "name", "city")
    assert delimited_record('3,"Berg, Ana",Oslo', ",", columns) == {
        "id": "3",
        "name": "Berg, Ana",
        "city": "Oslo",
    }
    assert delimited_record("3,Oslo", ",", columns) is None
    assert header_names("1,2,3", ",") is None and header_names("a,a", ",") is None


def test_key_value_and_json_lines_are_records_of_their_pairs() -> None:
    line = 'ts=2026-01-02T10:00:00Z level=warn msg="disk almost full" host=web-2'
    assert pairs_record(line) == {
        "ts": "2026-01-02T10:00:00Z",
        "level": "warn",
        "msg": "disk almost full",
        "host": "web-2",
    }
    assert pairs_record("just some words here") is None
    assert json_record('{"id": 1, "ok": true}') == {"id": 1, "ok": True}
    assert json_record("[1, 2]") is None and json_record("{broken") is None


def test_bare_words_before_the_pairs_are_fields_of_their_position() -> None:
    line = "2026-01-02T10:00:00Z WARN user=u7 msg=ok"
    assert pairs_record(line) == {
        "field1": "2026-01-02T10:00:00Z",
        "field2": "WARN",
        "user": "u7",
        "msg": "ok",
    }
    assert pairs_record("user=u7 WARN msg=ok") is None  # a bare word after a pair


def test_a_log_lines_tokens_keep_quoted_and_bracketed_parts_whole() -> None:
    line = '10.0.0.7 - ana [10/Oct/2026:13:55:36 +0000] "GET /a b HTTP/1.1" 404 17'
    assert tokens(line)[3:5] == ["[10/Oct/2026:13:55:36 +0000]", '"GET /a b HTTP/1.1"']
    record = token_record("Oct 11 22:14:15 host7 sshd[12]: Accepted key for ana", 5)
    assert record == {
        "field1": "Oct",
        "field2": "11",
        "field3": "22:14:15",
        "field4": "host7",
        "field5": "sshd[12]: Accepted key for ana",
    }
    assert token_record("too short", 5) is None


def test_a_pairs_key_may_be_a_flattened_path() -> None:
    line = 'REEL_ID=rl1 SPECS/PROPS/GAUGE=8mm specs.base="poly ester"'
    assert pairs_record(line) == {
        "REEL_ID": "rl1",
        "SPECS/PROPS/GAUGE": "8mm",
        "specs.base": "poly ester",
    }


def test_json_cells_and_path_columns_are_read_as_a_loader_reads_them() -> None:
    fields = {"id": "1", "props.floor": "3", "props.surface": "soil", "unit.price": "9"}
    fields |= {"tags": '["a","b"]', "note": "{not json"}
    assert shaped(fields) == {
        "id": "1",
        "props": {"floor": "3", "surface": "soil"},
        "unit.price": "9",  # a path no other column shares stays a name
        "tags": ["a", "b"],
        "note": "{not json",
    }
    assert shaped({"A/B": 1, "A/C": 2}) == {"A": {"B": 1, "C": 2}}
