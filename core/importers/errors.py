"""The one error every importer raises: it names the file, the record and the field."""

from __future__ import annotations


class CatalogImportError(ValueError):
    def __init__(self, path: str, message: str, *, record: int | None = None, field: str | None = None) -> None:
        self.path = path
        self.record = record
        self.field = field
        self.message = message
        parts = [path]
        if record is not None:
            parts.append(f"record {record}")
        if field is not None:
            parts.append(f"field '{field}'")
        super().__init__(": ".join(parts) + f": {message}")
