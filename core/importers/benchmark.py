"""Public tool-retrieval benchmarks in their own published layouts: tools, queries and gold labels at once.

Each format lives in its own module (``core.importers.bench_<name>``) with one function,
``parse(files) -> BenchmarkImport``, where ``files`` maps a file's path *relative to the folder the
user pointed at* (``"possible_answer/BFCL_v3_simple.json"``) to its bytes. Relative paths matter:
several benchmarks tell their files apart only by folder. Modules are imported on first use.

An import is all-or-nothing: a record the format says must be there and is malformed raises a
:class:`CatalogImportError` naming file, record and field. Records a format legitimately cannot turn
into a (query, gold) pair — a BFCL "irrelevance" question, a query whose gold tool is missing from the
released tool list — are left out and counted in ``BenchmarkImport.skipped``, so the user sees why the
query count differs from the paper's.
"""

from __future__ import annotations

import importlib
import io
import zipfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from core.importers._common import MAX_CATALOG_BYTES, check_catalog_size, read_file
from core.importers.errors import CatalogImportError
from core.models import Query, Tool

FORMATS: dict[str, str] = {
    "bfcl": "BFCL (Berkeley Function Calling Leaderboard): question files + possible_answer/",
    "toolbench": "ToolBench / StableToolBench: instruction query files (+ toolenv tool JSONs)",
    "metatool": "MetaTool (ToolE): plugin descriptions + query CSV / multi-tool JSON",
    "seal_tools": "Seal-Tools: tool.jsonl + dataset JSON files",
    "toolret": "ToolRet: tool and query JSONL files (one subset or several)",
}
# Whole benchmark folders are larger than one catalog file; this bounds what one import reads.
MAX_BENCHMARK_BYTES = 4 * MAX_CATALOG_BYTES


@dataclass(frozen=True)
class BenchmarkImport:
    """What a benchmark folder yields: a catalog, its query set, and what was left out and why."""

    benchmark: str
    tools: tuple[Tool, ...]
    queries: tuple[Query, ...]
    skipped: tuple[str, ...] = ()  # one human-readable line per kind of record left out, with its count


def benchmark_names() -> tuple[str, ...]:
    return tuple(FORMATS)


def _module(name: str):
    if name not in FORMATS:
        raise ValueError(f"unknown benchmark format {name!r}; valid formats: {', '.join(FORMATS)}")
    return importlib.import_module(f"core.importers.bench_{name}")


def parse_benchmark(name: str, files: Mapping[str, bytes]) -> BenchmarkImport:
    """Parse a benchmark's files (relative path → bytes) in the named format."""
    module = _module(name)
    if not files:
        raise CatalogImportError(name, "no files given")
    total = sum(len(data) for data in files.values())
    check_catalog_size(total, f"{name} files", MAX_BENCHMARK_BYTES)
    result = module.parse(dict(files))
    if not result.tools:
        raise CatalogImportError(name, "the files hold no tools")
    known = {t.key for t in result.tools}
    for i, q in enumerate(result.queries, start=1):
        missing = [g for g in q.gold if g not in known]
        if missing:  # a parser bug, not bad input: every kept gold key must be a tool
            raise CatalogImportError(name, f"gold key {missing[0]!r} of query {q.id!r} is not a tool", record=i,
                                     field="gold")
    return result


def _hidden(rel: str) -> bool:
    # ".." counts as hidden too: nothing is ever written to disk, but such an entry is no file of the folder
    return any(part.startswith(".") or part == "__MACOSX" for part in rel.split("/"))


def files_from_zip(data: bytes, path: str) -> dict[str, bytes]:
    """The files of a zip archive (a benchmark folder uploaded in one piece), keyed by relative path.

    A browser upload loses folders, and several benchmarks tell files apart only by folder
    (BFCL's questions and ``possible_answer/`` share file names), so the app takes a zip. A single
    top folder shared by every entry is dropped, as if the user had pointed at that folder. Sizes
    are checked against the declared and the actual uncompressed bytes, so a zip bomb stops early.
    """
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
    except (zipfile.BadZipFile, OSError) as exc:
        raise CatalogImportError(path, f"not a readable zip archive: {exc}") from None
    with archive:
        entries = [i for i in archive.infolist() if not i.is_dir() and not _hidden(i.filename)]
        declared = sum(i.file_size for i in entries)
        check_catalog_size(declared, path, MAX_BENCHMARK_BYTES)
        names = [i.filename.replace("\\", "/").lstrip("/") for i in entries]
        tops = {n.split("/", 1)[0] for n in names}
        strip = len(tops) == 1 and all("/" in n for n in names)
        files: dict[str, bytes] = {}
        total = 0
        for info, name in zip(entries, names, strict=True):
            rel = name.split("/", 1)[1] if strip else name
            try:
                with archive.open(info) as fh:
                    content = fh.read(MAX_BENCHMARK_BYTES - total + 1)
            except (zipfile.BadZipFile, OSError, RuntimeError, NotImplementedError) as exc:
                raise CatalogImportError(path, f"cannot read entry {info.filename!r}: {exc}") from None
            total += len(content)
            check_catalog_size(total, path, MAX_BENCHMARK_BYTES)
            files[rel] = content
    if not files:
        raise CatalogImportError(path, "the archive holds no files")
    return files


def _add_files(files: dict[str, bytes], more: Mapping[str, bytes], where: str, remedy: str) -> None:
    """Add ``more`` to ``files``; two files under one relative path would make the import ambiguous."""
    clash = sorted(set(more) & set(files))
    if clash:
        raise CatalogImportError(where, f"two files given as {clash[0]!r}; {remedy}")
    files.update(more)


def collect_files(paths: Sequence[str | Path]) -> dict[str, bytes]:
    """Files under ``paths`` (files, folders searched recursively, or zip archives), keyed by path
    relative to the folder given. Hidden files and folders (``.git``, ``.DS_Store``) are skipped.
    """
    files: dict[str, bytes] = {}
    total = 0
    for given in paths:
        root = Path(given)
        if root.is_file() and root.suffix.lower() == ".zip":
            unpacked = files_from_zip(read_file(root), str(root))
            total += sum(len(v) for v in unpacked.values())
            check_catalog_size(total, str(given), MAX_BENCHMARK_BYTES)
            _add_files(files, unpacked, str(root), "pass one archive or folder")
            continue
        if root.is_dir():
            found = sorted(p for p in root.rglob("*") if p.is_file()
                           and not any(part.startswith(".") for part in p.relative_to(root).parts))
            pairs = [(p.relative_to(root).as_posix(), p) for p in found]
        elif root.exists():
            pairs = [(root.name, root)]
        else:
            raise CatalogImportError(str(root), "no such file or folder")
        for rel, p in pairs:
            total += p.stat().st_size
            check_catalog_size(total, str(given), MAX_BENCHMARK_BYTES)
            _add_files(files, {rel: read_file(p)}, str(p), "pass their common folder instead")
    return files


def load_benchmark(name: str, paths: Sequence[str | Path]) -> BenchmarkImport:
    """Read and parse a benchmark from files or folders on disk."""
    _module(name)  # an unknown name fails before anything is read
    return parse_benchmark(name, collect_files(paths))


def uploaded_benchmark_files(uploads: Sequence[Any]) -> dict[str, bytes]:
    """Relative path → bytes from uploaded files (objects with ``name``, ``size`` and ``getvalue()``):
    zips are unpacked, other files keep their name. Sizes are checked before anything is read."""
    total = 0
    for upload in uploads:
        check_catalog_size(upload.size, upload.name)
        total += upload.size
    check_catalog_size(total, "the uploaded files", MAX_BENCHMARK_BYTES)
    files: dict[str, bytes] = {}
    for upload in uploads:
        unpacked = (files_from_zip(upload.getvalue(), upload.name) if upload.name.lower().endswith(".zip")
                    else {upload.name: upload.getvalue()})
        _add_files(files, unpacked, upload.name, "upload one zip of the folder")
    return files
