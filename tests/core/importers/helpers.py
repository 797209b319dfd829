"""Small helpers shared by the importer tests."""

from __future__ import annotations

import json
from typing import Any

import pytest

from core.importers.errors import CatalogImportError


def dumps(value: Any) -> bytes:
    return json.dumps(value).encode("utf-8")


def error_of(fn, *args, **kwargs) -> CatalogImportError:
    """The CatalogImportError that ``fn(*args, **kwargs)`` raises (fails the test otherwise)."""
    with pytest.raises(CatalogImportError) as info:
        fn(*args, **kwargs)
    return info.value


def check_error(err: CatalogImportError, path: str, record: int | None, field: str | None,
                *fragments: str) -> CatalogImportError:
    """The error points at ``path``/``record``/``field``, and its text says so in the house format."""
    assert (err.path, err.record, err.field) == (path, record, field), str(err)
    prefix = path
    if record is not None:
        prefix += f": record {record}"
    if field is not None:
        prefix += f": field '{field}'"
    assert str(err) == f"{prefix}: {err.message}"
    for fragment in fragments:
        assert fragment in err.message, err.message
    return err
