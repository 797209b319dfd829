"""The catalog size limit (MAX_CATALOG_BYTES, the 50 MB of server.maxUploadSize): a clear message naming
the file and the limit, from the upload path, from files (checked before reading) and from the CLI."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

import pytest

from core.importers import _common
from core.importers._common import MAX_CATALOG_BYTES, MB, check_catalog_size
from core.importers.detect import load_catalog_bytes, load_catalog_file
from core.importers.errors import CatalogImportError

REPO = Path(__file__).resolve().parents[3]
TOOLS = json.dumps([{"type": "function", "function": {"name": "t", "description": "d"}}]).encode()


def _sparse(path: Path, size: int) -> Path:
    with path.open("wb") as fh:  # sparse: no disk or memory is spent on the size
        fh.truncate(size)
    return path


def test_limit_matches_the_streamlit_upload_limit():
    config = tomllib.loads((REPO / ".streamlit" / "config.toml").read_text())
    assert MAX_CATALOG_BYTES == config["server"]["maxUploadSize"] * MB == 50 * MB


def test_message_names_the_file_and_the_limit():
    with pytest.raises(CatalogImportError) as err:
        check_catalog_size(60 * MB, "big tools.json")
    assert str(err.value) == ("big tools.json: file is too large to import (60.0 MB); "
                              "catalog files are limited to 50 MB")
    check_catalog_size(MAX_CATALOG_BYTES, "exactly.json")  # the limit itself is allowed


def test_upload_bytes_over_the_limit_are_refused_before_parsing(monkeypatch):
    monkeypatch.setattr(_common, "MAX_CATALOG_BYTES", 100)
    assert len(TOOLS) <= 100 and load_catalog_bytes(TOOLS, "ok.json")[0].name == "t"
    with pytest.raises(CatalogImportError) as err:
        load_catalog_bytes(b"{not even json" + b" " * 200, "upload.json")
    assert str(err.value) == ("upload.json: file is too large to import (214 bytes); "
                              "catalog files are limited to 100 bytes")
    with pytest.raises(CatalogImportError, match="limited to 100 bytes"):
        load_catalog_bytes("é" * 60, "text.json")  # text is measured in UTF-8 bytes


def test_file_over_the_limit_is_refused_before_reading(tmp_path):
    big = _sparse(tmp_path / "huge.json", MAX_CATALOG_BYTES + 1)
    with pytest.raises(CatalogImportError) as err:
        load_catalog_file(big)
    assert str(err.value) == f"{big}: file is too large to import (50.0 MB); catalog files are limited to 50 MB"


def test_workspace_and_cli_import_refuse_a_big_file(tmp_path, db, hashing_embedder, capsys):
    from core.workspace import Workspace

    big = _sparse(tmp_path / "huge.json", MAX_CATALOG_BYTES + MB)
    with pytest.raises(CatalogImportError, match="huge.json: file is too large to import \\(51.0 MB\\); "
                                                 "catalog files are limited to 50 MB"):
        Workspace(db, hashing_embedder).import_files(big, name="huge")

    from core.cli import main

    code = main(["import", str(big), "--name", "huge", "--db", f"sqlite:///{tmp_path / 'cli.db'}"])
    assert code != 0
    assert "catalog files are limited to 50 MB" in capsys.readouterr().err
