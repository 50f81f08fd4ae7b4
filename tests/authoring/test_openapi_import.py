"""OpenAPI import: one tool per operation, references inlined, a world that validates and
serves."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml
from mcp import Client

from mcp_sim.authoring.openapi_import import world_from_openapi
from mcp_sim.cli.main import main
from mcp_sim.errors import ImportFailed
from mcp_sim.server.mcp_front import build_server
from mcp_sim.simulator.core import Simulator
from mcp_sim.spec.loading import load_world
from mcp_sim.spec.world import World
from tests.conftest import ROOT
from tests.scripted_model import ScriptedModel

PETSTORE = ROOT / "examples" / "petstore.openapi.yaml"


@pytest.fixture(scope="module")
def petstore(tmp_path_factory: pytest.TempPathFactory) -> World:
    """The example document imported with ``mcp-sim import --openapi`` and loaded back."""
    path = tmp_path_factory.mktemp("openapi") / "petstore.yaml"
    assert main(["import", "--openapi", str(PETSTORE), "-o", str(path)]) == 0
    assert main(["validate", str(path)]) == 0
    return load_world(path)


def refs(value: Any) -> list[str]:
    if isinstance(value, dict):
        own = [str(value["$ref"])] if "$ref" in value else []
        return own + [r for v in value.values() for r in refs(v)]
    if isinstance(value, list):
        return [r for v in value for r in refs(v)]
    return []


def test_every_operation_becomes_a_tool_named_by_its_operation_id(petstore: World) -> None:
    assert [(t.name, t.effect) for t in petstore.tools] == [
        ("listPets", "read"),
        ("createPet", "write"),
        ("showPetById", "read"),
        ("deletePet", "write"),
        ("get_categories_categoryId", "read"),
    ]
    assert petstore.world == "petstore"
    assert "Base URL: https://petstore.example.com/v1" in petstore.description


def test_parameters_and_the_request_body_become_the_input_schema(petstore: World) -> None:
    show = petstore.tool("showPetById")
    assert show is not None
    # A path-level parameter behind a $ref, required because it is in the path.
    assert show.input_schema == {
        "type": "object",
        "properties": {"petId": {"type": "string", "description": "The id of the pet"}},
        "required": ["petId"],
    }
    create = petstore.tool("createPet")
    assert create is not None
    assert create.input_schema["required"] == ["body"]
    body = create.input_schema["properties"]["body"]
    assert body["required"] == ["name"]
    assert body["description"] == "The pet to add"


def test_openapi_3_0_keywords_become_json_schema(petstore: World) -> None:
    listing = petstore.tool("listPets")
    assert listing is not None
    limit = listing.input_schema["properties"]["limit"]
    assert limit == {
        "type": "integer",
        "maximum": 100,
        "exclusiveMinimum": 0,
        "examples": [20],
        "description": "How many pets to return",
    }
    assert listing.output_schema is not None
    assert listing.output_schema["properties"]["next"]["type"] == ["string", "null"]


def test_references_are_inlined_and_recursion_goes_through_defs(petstore: World) -> None:
    for tool in petstore.tools:
        for schema in (tool.input_schema, tool.output_schema):
            assert all(r.startswith("#/$defs/") for r in refs(schema)), tool.name
    category = petstore.tool("get_categories_categoryId")
    assert category is not None and category.output_schema is not None
    assert set(refs(category.output_schema)) == {"#/$defs/Category"}
    validator = jsonschema.Draft202012Validator(category.output_schema)
    tree = {"id": 1, "name": "dogs", "subcategories": [{"id": 2, "name": "terriers"}]}
    assert validator.is_valid(tree)
    assert not validator.is_valid({"id": 1, "name": "dogs", "subcategories": [{"id": "x"}]})


def test_success_and_error_responses_become_output_schema_and_errors(petstore: World) -> None:
    show = petstore.tool("showPetById")
    delete = petstore.tool("deletePet")
    assert show is not None and delete is not None
    assert show.errors == ["404: No pet has this id"]
    assert show.output_schema is not None
    pet = {"id": "p1", "name": "Rex", "tag": None}
    assert jsonschema.Draft202012Validator(show.output_schema).is_valid(pet)
    assert not jsonschema.Draft202012Validator(show.output_schema).is_valid({"name": "Rex"})
    # 204 has no body: no output schema.
    assert delete.output_schema is None
    assert delete.errors == ["404: No pet has this id"]


async def test_the_imported_world_serves_its_tools_and_structured_answers(
    petstore: World,
) -> None:
    pet = {"id": "p1", "name": "Rex", "tag": "dog"}
    simulator = Simulator(petstore, ScriptedModel(json.dumps(pet)))
    async with Client(build_server(simulator)) as client:
        listed = (await client.list_tools()).tools
        result = await client.call_tool("showPetById", {"petId": "p1"})
    assert [t.name for t in listed] == [t.name for t in petstore.tools]
    assert not result.is_error
    assert result.structured_content == pet


def document(**paths: Any) -> dict[str, Any]:
    return {"openapi": "3.1.0", "info": {"title": "T", "version": "1"}, "paths": paths}


def test_swagger_2_documents_are_refused_with_a_way_out() -> None:
    with pytest.raises(ImportFailed, match=r"Swagger 2\.0"):
        world_from_openapi({"swagger": "2.0", "info": {"title": "Old"}, "paths": {}})


def test_references_to_other_files_are_refused() -> None:
    get = {"responses": {"200": {"$ref": "common.yaml#/responses/Ok"}}}
    with pytest.raises(ImportFailed, match="another file"):
        world_from_openapi(document(**{"/a": {"get": get}}))


def test_a_reference_that_does_not_resolve_is_refused() -> None:
    get = {"parameters": [{"$ref": "#/components/parameters/Missing"}], "responses": {}}
    with pytest.raises(ImportFailed, match="does not resolve"):
        world_from_openapi(document(**{"/a": {"get": get}}))


def test_clashing_names_are_told_apart() -> None:
    data = document(
        **{
            "/items/{id}": {
                "parameters": [{"name": "id", "in": "path", "schema": {"type": "string"}}],
                "get": {
                    "operationId": "getItem",
                    "parameters": [{"name": "id", "in": "query", "schema": {"type": "integer"}}],
                    "responses": {},
                },
            },
            "/other/{id}": {"get": {"operationId": "getItem", "responses": {}}},
        }
    )
    tools = world_from_openapi(data)["tools"]
    assert [t["name"] for t in tools] == ["getItem", "getItem_2"]
    assert list(tools[0]["input_schema"]["properties"]) == ["id", "id_query"]
    assert tools[0]["input_schema"]["required"] == ["id"]


def test_the_written_world_is_plain_yaml_without_aliases(tmp_path: Path) -> None:
    path = tmp_path / "w.yaml"
    assert main(["import", "--openapi", str(PETSTORE), "-o", str(path)]) == 0
    text = path.read_text()
    assert "&id" not in text and "*id" not in text
    assert yaml.safe_load(text)["tools"][0]["name"] == "listPets"
