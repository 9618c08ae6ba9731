"""The package's version in one place: pyproject.toml and every JSON document read it."""

from __future__ import annotations

#: the release this code is (Semantic Versioning; CHANGELOG.md says what each one holds)
VERSION = "0.1.0"
#: the field that carries it in every JSON document the project emits (`version` alone is
#: taken: a journal export's format version, a rulebook file's version in the HTTP API)
VERSION_FIELD = "rulebook_version"


def versioned(document: dict) -> dict:
    """The document with the package's version in it (a copy; the version's field first
    after `kind` when it has one, else first)."""
    if _in_place(document):  # (a run's document, made so: `json_data._head`) a copy of it
        return dict(document)
    out = {}
    if "kind" in document:
        out["kind"] = document["kind"]
    out[VERSION_FIELD] = VERSION
    out.update((key, value) for key, value in document.items() if key != VERSION_FIELD)
    return out


def _in_place(document: dict) -> bool:
    """Whether the document has `kind`, then this version, first: as `versioned` writes it."""
    keys = iter(document)
    return (
        next(keys, None) == "kind"
        and next(keys, None) == VERSION_FIELD
        and document[VERSION_FIELD] == VERSION
    )
