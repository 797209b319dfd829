"""The benchmark registry and how a benchmark's files are gathered (folders, zips, uploads)."""

import io
import zipfile

import pytest

from core.importers import benchmark
from core.importers.benchmark import collect_files, files_from_zip, load_benchmark, parse_benchmark
from core.importers.errors import CatalogImportError


def make_zip(entries: dict[str, bytes]) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, data in entries.items():
            zf.writestr(name, data)
    return buf.getvalue()


class Upload:
    """What Streamlit's file_uploader hands over: a name, a size and the bytes."""

    def __init__(self, name: str, data: bytes):
        self.name, self.size, self._data = name, len(data), data

    def getvalue(self) -> bytes:
        return self._data


def test_an_unknown_format_lists_the_valid_ones():
    with pytest.raises(ValueError, match="unknown benchmark format 'toolbox'; valid formats: bfcl, toolbench, "
                                         "metatool, seal_tools, toolret"):
        parse_benchmark("toolbox", {"a.json": b"[]"})
    with pytest.raises(ValueError, match="unknown benchmark format"):
        load_benchmark("toolbox", ["/nonexistent"])  # the name is checked before anything is read


def test_no_files_is_an_error():
    with pytest.raises(CatalogImportError, match="bfcl: no files given"):
        parse_benchmark("bfcl", {})


def test_a_zip_keeps_folders_and_drops_one_shared_top_folder():
    data = make_zip({"gorilla/data/BFCL_v3_simple.json": b"q", "gorilla/data/possible_answer/BFCL_v3_simple.json": b"a",
                     "gorilla/.git/config": b"x", "__MACOSX/gorilla/._x": b"y", "gorilla/data/": b""})
    assert files_from_zip(data, "bfcl.zip") == {"data/BFCL_v3_simple.json": b"q",
                                                 "data/possible_answer/BFCL_v3_simple.json": b"a"}
    # two top folders: nothing to drop
    assert set(files_from_zip(make_zip({"a/x.json": b"1", "b/y.json": b"2"}), "z.zip")) == {"a/x.json", "b/y.json"}


def test_bad_zips_are_refused_with_the_file_named(monkeypatch):
    with pytest.raises(CatalogImportError, match="upload.zip: not a readable zip archive"):
        files_from_zip(b"PK\x03\x04 not really", "upload.zip")
    with pytest.raises(CatalogImportError, match="empty.zip: the archive holds no files"):
        files_from_zip(make_zip({".hidden": b"1"}), "empty.zip")
    assert files_from_zip(make_zip({"a/../../etc/passwd": b"1", "b/x": b"2"}), "evil.zip") == {"x": b"2"}
    # a zip bomb stops on the declared size, before anything is inflated
    monkeypatch.setattr(benchmark, "MAX_BENCHMARK_BYTES", 1000)
    with pytest.raises(CatalogImportError, match="bomb.zip: file is too large to import"):
        files_from_zip(make_zip({"big.json": b"0" * 5000}), "bomb.zip")


def test_collect_files_walks_folders_relative_to_the_folder_given(tmp_path):
    root = tmp_path / "bfcl"
    (root / "possible_answer").mkdir(parents=True)
    (root / "BFCL_v3_simple.json").write_bytes(b"q")
    (root / "possible_answer" / "BFCL_v3_simple.json").write_bytes(b"a")
    (root / ".cache").mkdir()
    (root / ".cache" / "x").write_bytes(b"skip")
    extra = tmp_path / "notes.txt"
    extra.write_bytes(b"n")
    assert collect_files([root, extra]) == {"BFCL_v3_simple.json": b"q", "possible_answer/BFCL_v3_simple.json": b"a",
                                            "notes.txt": b"n"}
    archive = tmp_path / "bfcl.zip"
    archive.write_bytes(make_zip({"bfcl/BFCL_v3_simple.json": b"q", "bfcl/possible_answer/BFCL_v3_simple.json": b"a"}))
    assert collect_files([archive]) == {"BFCL_v3_simple.json": b"q", "possible_answer/BFCL_v3_simple.json": b"a"}
    with pytest.raises(CatalogImportError, match="two files given as 'BFCL_v3_simple.json'"):
        collect_files([root, archive])
    with pytest.raises(CatalogImportError, match="missing: no such file or folder"):
        collect_files([tmp_path / "missing"])


def test_uploads_unpack_zips_and_check_sizes_first(monkeypatch):
    files = benchmark.uploaded_benchmark_files([Upload("b.zip", make_zip({"d/x.json": b"1", "d/sub/y.json": b"2"})),
                                                Upload("z.csv", b"3")])
    assert files == {"x.json": b"1", "sub/y.json": b"2", "z.csv": b"3"}
    with pytest.raises(CatalogImportError, match="two files given as 'x.json'"):
        benchmark.uploaded_benchmark_files([Upload("x.json", b"1"), Upload("x.json", b"2")])
    monkeypatch.setattr(benchmark, "MAX_BENCHMARK_BYTES", 10)
    with pytest.raises(CatalogImportError, match="the uploaded files: file is too large"):
        benchmark.uploaded_benchmark_files([Upload("a.json", b"123456"), Upload("b.json", b"123456")])
