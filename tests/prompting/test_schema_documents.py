"""The links a schema document declares, whatever its kind: an OpenAPI document's foreign-key
notes, a JSON Schema's marks and ``$ref``s, a list of table descriptions, SQL DDL."""

from __future__ import annotations

from mcp_sim.prompting.schema_documents import declared_links

FK = "Note:\nThis is a Foreign Key to `customers.id`.<fk table='customers' column='id'/>"


def test_an_openapi_document_declares_links_in_its_column_descriptions() -> None:
    document = {
        "swagger": "2.0",
        "definitions": {
            "orders": {
                "properties": {
                    "id": {"description": "Note:\nThis is a Primary Key.<pk/>"},
                    "buyer": {"type": "integer", "description": FK},
                    "total": {"type": "number"},
                }
            }
        },
    }
    assert declared_links({"/": document, "/orders": []}) == [("orders", "buyer", "customers")]


def test_json_schema_marks_and_refs_and_table_lists_declare_links() -> None:
    schema = {
        "$defs": {
            "tickets": {
                "properties": {
                    "owner": {"type": "integer", "x-foreign-key": "public.users.id"},
                    "parent": {"$ref": "#/$defs/tickets"},
                }
            }
        }
    }
    assert declared_links({"meta": {"schema": schema}}) == [
        ("tickets", "owner", "users"),
        ("tickets", "parent", "tickets"),
    ]
    catalog = {
        "tables": [{"name": "loans", "columns": [{"name": "ref_a", "references": "books(id)"}]}]
    }
    assert declared_links(catalog) == [("loans", "ref_a", "books")]


def test_sql_ddl_declares_inline_references_and_foreign_key_clauses() -> None:
    ddl = (
        'CREATE TABLE IF NOT EXISTS public."visits" (\n  id serial PRIMARY KEY,\n'
        "  subject integer NOT NULL REFERENCES patients(id),\n  room text,\n"
        "  site integer,\n  CONSTRAINT v_site FOREIGN KEY (site) REFERENCES sites (id)\n);"
    )
    assert declared_links({"schema.sql": ddl}) == [
        ("visits", "subject", "patients"),
        ("visits", "site", "sites"),
    ]
    assert declared_links({"rows": [{"note": "we reference it"}]}) == []
