"""A random shape's links named only in a schema document: the links' fields that refer to
the two parties carry names that do not say their target (``owner``, ``ref_a``, ``parent``),
and a schema document beside the collections names the links: an OpenAPI document whose
column descriptions note the foreign keys as PostgREST writes them, a JSON Schema marking
them ``x-foreign-key``, or SQL DDL with ``REFERENCES``. For some seeds the searches take
their constraints as one query string of filters, PostgREST's ``field=op.value`` joined by
``&`` (``eq``, ``neq``, ``gte``, ``lte``, ``in.(a,b)``, ``like.Ab*``).

Drawn for about two seeds in ten from a generator of its own, so that seeds that do not draw
it are unchanged."""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from benchmarks.zoo.kit import State
from benchmarks.zoo.random_shapes.fields import Entity

if TYPE_CHECKING:
    from benchmarks.zoo.random_shapes.design import Design

SHARE = 0.2
"""The share of the seeds that draw the class."""
PRIMARY_NAMES = ("owner", "holder", "subject", "ref_a", "parent", "source")
SECONDARY_NAMES = ("party", "ref_b", "counterpart", "target", "related", "about")
"""Names of a link's references that say nothing of the collection they refer to."""
DOCUMENTS = ("openapi", "jsonschema", "ddl")
DOCUMENT_KEYS = {"openapi": "openapi.json", "jsonschema": "schema.json", "ddl": "schema.sql"}
FILTER_ARGS = ("filter", "filters", "where", "params")


@dataclass(frozen=True)
class SchemaLinks:
    """What a seed drawing the class draws."""

    names: dict[str, str]
    """By role (``primary``, ``secondary``): the name of a link's reference to its records."""
    document: str
    """``openapi``, ``jsonschema`` or ``ddl``."""
    filters: str | None = None
    """The argument the searches take a query string of filters in (none: not so)."""

    def name_for(self, role: str, link: Entity) -> str:
        """The name of a link's reference to the records of ``role``, unless a field of the
        link goes by it (a ``target`` hours figure): then with ``_ref`` after it."""
        name = self.names[role]
        taken = {n for f in link.fields for n in (f.name, *f.alts)}
        return f"{name}_ref" if name in taken else name

    @property
    def key(self) -> str:
        """The state's key the document is kept under."""
        return DOCUMENT_KEYS[self.document]


def draw_schema_links(seed: int) -> SchemaLinks | None:
    """The class as seed ``seed`` draws it (none for most seeds), from its own generator."""
    rng = random.Random(f"{seed}/schema-links")
    drawn = rng.random() < SHARE
    names = {"primary": rng.choice(PRIMARY_NAMES), "secondary": rng.choice(SECONDARY_NAMES)}
    document, filters = rng.choice(DOCUMENTS), rng.choice(FILTER_ARGS)
    return SchemaLinks(names, document, filters if rng.random() < 0.5 else None) if drawn else None


def _columns(design: Design, role: str) -> dict[str, tuple[str, str | None]]:
    """A table's columns: stored name → (type, the table it refers to)."""
    entity = design.entity(role)
    id_type = "integer" if design.id_styles[role] == "int" else "text"
    found: dict[str, tuple[str, str | None]] = {design.stores[role].id_key: (id_type, None)}
    for field in entity.fields:
        stored = (
            design.path(field)[0]
            if role == "primary"
            else design.spell(f"{entity.singular}.{field.name}")
        )
        found.setdefault(stored, ("numeric" if field.numeric else "text", None))
    if role == "link":
        for target in ("primary", "secondary"):
            kind = "integer" if design.id_styles[target] == "int" else "text"
            found[design.reference_key(target)] = (kind, _table(design, target))
    return found


def _table(design: Design, role: str) -> str:
    return design.stores[role].at[-1]


def schema_document(design: Design, links: SchemaLinks) -> Any:
    """The document naming the tables' columns and the links' targets, in the drawn kind."""
    tables = {_table(design, r): (r, _columns(design, r)) for r in ("primary", "secondary", "link")}
    if links.document == "ddl":
        statements = []
        for name, (role, columns) in tables.items():
            lines = []
            for column, (kind, target) in columns.items():
                key = " PRIMARY KEY" if column == design.stores[role].id_key else ""
                to = f"{_quoted(target)}({_quoted(_target_key(design, target))})" if target else ""
                refers = f" REFERENCES {to}" if target else ""
                lines.append(f"  {_quoted(column)} {kind}{key}{refers}")
            statements.append(f"CREATE TABLE {_quoted(name)} (\n" + ",\n".join(lines) + "\n);")
        return "\n\n".join(statements)
    described: dict[str, Any] = {}
    for name, (_role, columns) in tables.items():
        properties: dict[str, Any] = {}
        for column, (kind, target) in columns.items():
            about: dict[str, Any] = {"type": "integer" if kind == "integer" else "string"}
            if target and links.document == "openapi":
                key = _target_key(design, target)
                about["description"] = (
                    f"Note:\nThis is a Foreign Key to `{target}.{key}`."
                    f"<fk table='{target}' column='{key}'/>"
                )
            elif target:
                about["x-foreign-key"] = f"{target}.{_target_key(design, target)}"
            properties[column] = about
        described[name] = {"type": "object", "properties": properties}
    if links.document == "openapi":
        info = {"title": design.domain.title, "version": "1.0.0"}
        return {"openapi": "3.0.3", "info": info, "components": {"schemas": described}}
    return {"$schema": "https://json-schema.org/draft/2020-12/schema", "$defs": described}


def _quoted(name: str | None) -> str:
    """An SQL identifier, quoted unless it is a plain word (``"ref-a"``)."""
    return str(name) if str(name).isidentifier() else f'"{name}"'


def _target_key(design: Design, table: str) -> str:
    role = next(r for r in ("primary", "secondary") if _table(design, r) == table)
    return design.stores[role].id_key


def add_document(design: Design, state: State) -> None:
    """Keeps the seed's schema document beside its collections (where it draws the class)."""
    if design.schema_links is not None:
        state[design.schema_links.key] = schema_document(design, design.schema_links)
