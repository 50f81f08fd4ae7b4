"""Turn an OpenAPI 3 document into a world (``mcp-sim import --openapi FILE``).

One tool per operation:

- the name is the ``operationId`` (characters MCP does not allow become ``_``), or
  ``method_path`` when there is none;
- the input schema is an object with one property per parameter (path, query, header, cookie;
  path-level parameters included) and ``body`` for the JSON request body;
- the output schema is the JSON schema of the first success response, when it is an object
  (MCP requires structured results to be objects); otherwise the response is only described;
- every declared error response (4xx, 5xx, ``default``) becomes one of the tool's ``errors``;
- ``GET``, ``HEAD``, ``OPTIONS`` and ``TRACE`` are ``effect: read``, the other methods ``write``.

Local ``$ref``s (``#/components/...``) are inlined. A schema that refers to itself, directly
or through others, is inlined once and its recursive references point into the tool schema's
own ``$defs``, so every tool schema stands alone. OpenAPI 3.0's dialect is translated to JSON
Schema 2020-12 (``nullable``, boolean ``exclusiveMinimum``/``exclusiveMaximum``, ``example``);
3.1 documents already use it. Swagger 2.0 and references to other files are refused with a
message saying so.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any
from urllib.parse import unquote

import yaml

from mcp_sim.authoring.mcp_import import imported_world_yaml, world_id
from mcp_sim.errors import ImportFailed

METHODS = ("get", "put", "post", "delete", "options", "head", "patch", "trace")
READ_METHODS = frozenset({"get", "head", "options", "trace"})
_SUBSCHEMA_MAPS = ("properties", "patternProperties", "$defs", "definitions", "dependentSchemas")
_SUBSCHEMA_LISTS = ("allOf", "anyOf", "oneOf", "prefixItems")
_SUBSCHEMA_SINGLE = (
    "items",
    "additionalProperties",
    "not",
    "if",
    "then",
    "else",
    "contains",
    "propertyNames",
    "unevaluatedItems",
    "unevaluatedProperties",
)


class _DocumentLoader(yaml.SafeLoader):
    """Keeps dates as strings, as in world files: an unquoted ``example: 2024-01-01`` is text
    in JSON Schema, not a date."""


_DocumentLoader.yaml_implicit_resolvers = {
    first: [(tag, rx) for tag, rx in resolvers if tag != "tag:yaml.org,2002:timestamp"]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}


def load_document(path: str | Path) -> dict[str, Any]:
    """An OpenAPI document from a YAML or JSON file."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ImportFailed(f"cannot read the OpenAPI document {path}: {exc}") from None
    try:
        data = yaml.load(text, Loader=_DocumentLoader)
    except yaml.YAMLError as exc:
        raise ImportFailed(f"{path} is neither YAML nor JSON: {exc}") from None
    if not isinstance(data, dict):
        raise ImportFailed(f"{path} is not an OpenAPI document (its root is not a mapping)")
    return data


class _Document:
    """An OpenAPI document and the local references in it."""

    def __init__(self, data: dict[str, Any]) -> None:
        self.data = data
        version = str(data.get("openapi", ""))
        if "swagger" in data:
            raise ImportFailed(
                "this is a Swagger 2.0 document; convert it to OpenAPI 3 first "
                "(e.g. with swagger2openapi)"
            )
        if not version.startswith("3."):
            raise ImportFailed(f"not an OpenAPI 3 document (openapi: {version or 'missing'})")
        self.dialect_30 = version.startswith("3.0")

    def resolve(self, ref: str) -> Any:
        if not ref.startswith("#"):
            raise ImportFailed(
                f"$ref {ref!r} points into another file; only references within the document "
                "(#/...) are supported: bundle the document first (e.g. redocly bundle)"
            )
        node: Any = self.data
        for raw in ref[1:].split("/")[1:]:
            part = unquote(raw).replace("~1", "/").replace("~0", "~")
            if isinstance(node, dict) and part in node:
                node = node[part]
            elif isinstance(node, list) and part.isdigit() and int(part) < len(node):
                node = node[int(part)]
            else:
                raise ImportFailed(f"$ref {ref!r} does not resolve within the document")
        return node

    def deref(self, node: Any) -> Any:
        """A parameter, request body or response object, following its ``$ref`` chain."""
        seen: set[str] = set()
        while isinstance(node, dict) and isinstance(node.get("$ref"), str):
            ref = node["$ref"]
            if ref in seen:
                raise ImportFailed(f"$ref {ref!r} refers to itself")
            seen.add(ref)
            node = self.resolve(ref)
        return node


class _SchemaConverter:
    """Inlines the references of one tool schema and translates OpenAPI 3.0 keywords."""

    def __init__(self, document: _Document) -> None:
        self.document = document
        self.defs: dict[str, Any] = {}
        self._def_names: dict[str, str] = {}

    def root(self, schema: dict[str, Any]) -> dict[str, Any]:
        """``schema`` as a standalone tool schema: with ``$defs`` for recursive parts."""
        if self.defs:
            return {**schema, "$defs": dict(sorted(self.defs.items()))}
        return schema

    def convert(self, schema: Any, stack: tuple[str, ...] = ()) -> Any:
        if not isinstance(schema, dict):
            return schema
        ref = schema.get("$ref")
        if isinstance(ref, str):
            if ref in stack:
                return {"$ref": f"#/$defs/{self._define(ref)}"}
            target = self.convert(self.document.resolve(ref), (*stack, ref))
            siblings = {k: v for k, v in schema.items() if k != "$ref"}
            # OpenAPI 3.1 lets a $ref carry a description or summary next to it.
            return {**target, **siblings} if isinstance(target, dict) else target
        out: dict[str, Any] = {}
        for key, value in schema.items():
            if key in _SUBSCHEMA_MAPS and isinstance(value, dict):
                out[key] = {k: self.convert(v, stack) for k, v in value.items()}
            elif key in _SUBSCHEMA_LISTS and isinstance(value, list):
                out[key] = [self.convert(v, stack) for v in value]
            elif key in _SUBSCHEMA_SINGLE and isinstance(value, dict):
                out[key] = self.convert(value, stack)
            else:
                out[key] = value
        return _json_schema_dialect(out) if self.document.dialect_30 else out

    def _define(self, ref: str) -> str:
        name = self._def_names.get(ref)
        if name is None:
            base = re.sub(r"[^A-Za-z0-9_.-]", "_", ref.rsplit("/", 1)[-1]) or "schema"
            name = base
            while name in self.defs:
                name += "_"
            # Named before converting, so the recursion inside finds it and stops.
            self._def_names[ref] = name
            self.defs[name] = {}
            self.defs[name] = self.convert(self.document.resolve(ref), (ref,))
        return name


def _json_schema_dialect(schema: dict[str, Any]) -> dict[str, Any]:
    """OpenAPI 3.0's schema keywords in JSON Schema 2020-12 terms."""
    out = dict(schema)
    if out.pop("nullable", False) is True:
        kind = out.get("type")
        if isinstance(kind, str):
            out["type"] = [kind, "null"]
        if isinstance(out.get("enum"), list) and None not in out["enum"]:
            out["enum"] = [*out["enum"], None]
    for bound, limit in (("exclusiveMinimum", "minimum"), ("exclusiveMaximum", "maximum")):
        flag = out.get(bound)
        if isinstance(flag, bool):
            del out[bound]
            if flag and limit in out:
                out[bound] = out.pop(limit)
    if "example" in out:
        out.setdefault("examples", [out["example"]])
        del out["example"]
    return out


def _tool_name(operation: dict[str, Any], method: str, path: str) -> str:
    raw = operation.get("operationId")
    if not isinstance(raw, str) or not raw.strip():
        raw = f"{method}_{path}"
    name = re.sub(r"_+", "_", re.sub(r"[^A-Za-z0-9._-]+", "_", raw.strip())).strip("_")
    return (name or method)[:64]


def _json_media(content: Any) -> Any:
    """The schema of the JSON media type of a content map (or of its first media type)."""
    if not isinstance(content, dict) or not content:
        return None
    for media, entry in content.items():
        if media == "application/json" or media.endswith("+json"):
            return entry.get("schema") if isinstance(entry, dict) else None
    first = next(iter(content.values()))
    return first.get("schema") if isinstance(first, dict) else None


def _success_codes(responses: dict[str, Any]) -> list[str]:
    codes = [str(c) for c in responses if str(c).startswith("2")]
    return sorted(codes, key=lambda c: c.replace("X", "9").replace("x", "9"))


class _Operation:
    """One operation becoming one tool."""

    def __init__(
        self,
        document: _Document,
        path: str,
        method: str,
        operation: dict[str, Any],
        shared: list[Any],
    ) -> None:
        self.document = document
        self.path = path
        self.method = method
        self.operation = operation
        self.shared = shared

    def parameters(self) -> list[dict[str, Any]]:
        """Path-level parameters overridden by operation-level ones (same name and place)."""
        merged: dict[tuple[str, str], dict[str, Any]] = {}
        for raw in [*self.shared, *(self.operation.get("parameters") or [])]:
            parameter = self.document.deref(raw)
            if isinstance(parameter, dict) and isinstance(parameter.get("name"), str):
                merged[(parameter["name"], str(parameter.get("in", "query")))] = parameter
        return list(merged.values())

    def input_schema(self) -> dict[str, Any]:
        converter = _SchemaConverter(self.document)
        properties: dict[str, Any] = {}
        required: list[str] = []
        for parameter in self.parameters():
            name, place = parameter["name"], str(parameter.get("in", "query"))
            key = name if name not in properties else f"{name}_{place}"
            raw = parameter.get("schema") or _json_media(parameter.get("content")) or {}
            schema = converter.convert(raw)
            schema = dict(schema) if isinstance(schema, dict) else {}
            description = parameter.get("description")
            if isinstance(description, str) and "description" not in schema:
                schema["description"] = description
            properties[key] = schema
            if place == "path" or parameter.get("required") is True:
                required.append(key)
        body = self.document.deref(self.operation.get("requestBody"))
        if isinstance(body, dict):
            key = "body" if "body" not in properties else "request_body"
            schema = converter.convert(_json_media(body.get("content")) or {})
            schema = dict(schema) if isinstance(schema, dict) else {}
            if isinstance(body.get("description"), str) and "description" not in schema:
                schema["description"] = body["description"]
            properties[key] = schema
            if body.get("required") is True:
                required.append(key)
        root: dict[str, Any] = {"type": "object", "properties": properties}
        if required:
            root["required"] = required
        return converter.root(root)

    def responses(self) -> dict[str, Any]:
        responses = self.operation.get("responses")
        return responses if isinstance(responses, dict) else {}

    def output_schema(self) -> dict[str, Any] | None:
        responses = self.responses()
        for code in _success_codes(responses):
            response = self.document.deref(responses[code])
            raw = _json_media(response.get("content")) if isinstance(response, dict) else None
            if raw is None:
                continue
            converter = _SchemaConverter(self.document)
            schema = converter.convert(raw)
            if isinstance(schema, dict) and schema.get("type") == "object":
                return converter.root(schema)
            return None
        return None

    def errors(self) -> list[str]:
        errors = []
        for code, raw in self.responses().items():
            code = str(code)
            if code.startswith(("1", "2", "3")):
                continue
            response = self.document.deref(raw)
            text = response.get("description", "") if isinstance(response, dict) else ""
            errors.append(f"{code}: {text}".rstrip(": ") if text else code)
        return errors

    def description(self) -> str:
        parts = [
            str(self.operation[key]).strip()
            for key in ("summary", "description")
            if isinstance(self.operation.get(key), str) and self.operation[key].strip()
        ]
        parts.append(f"HTTP: `{self.method.upper()} {self.path}`")
        responses = self.responses()
        for code in _success_codes(responses)[:1]:
            response = self.document.deref(responses[code])
            if isinstance(response, dict) and response.get("description"):
                parts.append(f"Success ({code}): {response['description']}")
        return "\n\n".join(parts)

    def tool(self, name: str) -> dict[str, Any]:
        tool: dict[str, Any] = {
            "name": name,
            "description": self.description(),
            "input_schema": self.input_schema(),
        }
        output = self.output_schema()
        if output is not None:
            tool["output_schema"] = output
        tool["effect"] = "read" if self.method in READ_METHODS else "write"
        errors = self.errors()
        if errors:
            tool["errors"] = errors
        return tool


def world_from_openapi(data: dict[str, Any], *, world: str | None = None) -> dict[str, Any]:
    """The world spec (as data) of an OpenAPI 3 document."""
    document = _Document(data)
    raw_info = data.get("info")
    info: dict[str, Any] = raw_info if isinstance(raw_info, dict) else {}
    title = str(info.get("title") or "Imported API")
    tools: list[dict[str, Any]] = []
    names: set[str] = set()
    raw_paths = data.get("paths")
    paths: dict[str, Any] = raw_paths if isinstance(raw_paths, dict) else {}
    for path, raw_item in paths.items():
        item = document.deref(raw_item)
        if not isinstance(item, dict):
            continue
        for method in METHODS:
            operation = item.get(method)
            if not isinstance(operation, dict):
                continue
            name = _tool_name(operation, method, str(path))
            while name in names:
                name = f"{name[:62]}_2" if not name.endswith("_2") else f"{name}2"
            names.add(name)
            op = _Operation(document, str(path), method, operation, item.get("parameters") or [])
            tools.append(op.tool(name))
    if not tools:
        raise ImportFailed("the OpenAPI document has no operations; a world needs a tool")
    description = [str(info["description"]).strip()] if info.get("description") else []
    servers = [s["url"] for s in data.get("servers") or [] if isinstance(s, dict) and "url" in s]
    if servers:
        description.append(f"Base URL: {servers[0]}")
    if info.get("version"):
        description.append(f"API version: {info['version']}")
    return {
        "world": world or world_id(title.lower()),
        "title": title,
        "domain": "mcp",
        "description": "\n\n".join(description),
        "tools": tools,
    }


def import_openapi(path: str | Path, *, world: str | None = None) -> str:
    """The YAML text of a world made from the OpenAPI document at ``path``."""
    data = world_from_openapi(load_document(path), world=world)
    return imported_world_yaml(data, f"the OpenAPI document {Path(path).name}")
