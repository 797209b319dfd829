"""The single error type of the importers: it points at the file, the record and the field."""

from __future__ import annotations


class CatalogImportError(ValueError):
    """Input we refuse to import.

    ``path`` is the file name as the caller gave it, ``record`` the 1-based position of
    the offending entry (list index, operation number, or line number for JSONL) and
    ``field`` a dotted path inside that entry; either may be ``None`` when the problem
    concerns the whole file. ``str(err)`` joins them, e.g.
    ``tools.json: record 3: field 'function.name': missing``.
    """

    def __init__(self, path: str, message: str, *, record: int | None = None, field: str | None = None) -> None:
        self.path = str(path)
        self.message = message
        self.record = record
        self.field = field
        parts = [self.path]
        if record is not None:
            parts.append(f"record {record}")
        if field is not None:
            parts.append(f"field '{field}'")
        parts.append(message)
        super().__init__(": ".join(parts))

    def __reduce__(self):
        # The default reduction would call __init__ with the joined text only; keep the parts instead
        # so the error survives pickling (process pools, caches).
        return _rebuild, (self.path, self.message, self.record, self.field)


def _rebuild(path: str, message: str, record: int | None, field: str | None) -> CatalogImportError:
    return CatalogImportError(path, message, record=record, field=field)
