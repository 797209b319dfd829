"""The layers point one way: pages -> components -> core -> storage (ARCHITECTURE.md).

Read from the source with ``ast``: pages and components reach the store only through ``core`` (the Workspace and
the core services), never by importing ``storage`` or touching a workspace's ``.db``; ``storage`` imports
nothing of ``core`` but ``core.models``; neither ``core`` nor ``storage`` imports streamlit, components or pages.
"""

from __future__ import annotations

import ast
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def _modules(*folders: str) -> list[Path]:
    return sorted(p for folder in folders for p in (REPO / folder).rglob("*.py"))


def imported(tree: ast.AST) -> list[tuple[int, str]]:
    """Every module a source imports, with its line: ``import a.b`` gives a.b, ``from a import b`` gives a.b
    (so ``from core import models`` counts as core.models). Relative imports are left out (none are used)."""
    out: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            out += [(node.lineno, f"{node.module}.{alias.name}") for alias in node.names]
    return out


def _is(name: str, package: str) -> bool:
    return name == package or name.startswith(package + ".")


def store_access(source: str) -> list[str]:
    """What in a page or component reaches the store itself: an import of ``storage``, or ``.db``."""
    tree = ast.parse(source)
    found = [f"line {line}: imports {name}" for line, name in imported(tree) if _is(name, "storage")]
    found += [f"line {n.lineno}: uses .db" for n in ast.walk(tree) if isinstance(n, ast.Attribute) and n.attr == "db"]
    return found


def core_imports_in_storage(source: str) -> list[str]:
    return [f"line {line}: imports {name}" for line, name in imported(ast.parse(source))
            if _is(name, "core") and not _is(name, "core.models")]


def upward_imports(source: str) -> list[str]:
    """What in core or storage imports a layer above it (components or pages)."""
    return [f"line {line}: imports {name}" for line, name in imported(ast.parse(source))
            if _is(name, "components") or _is(name, "pages")]


def streamlit_imports(source: str) -> list[str]:
    return [f"line {line}: imports {name}" for line, name in imported(ast.parse(source)) if _is(name, "streamlit")]


def _violations(rule, folders: tuple[str, ...]) -> list[str]:
    return [f"{path.relative_to(REPO)} {problem}" for path in _modules(*folders)
            for problem in rule(path.read_text(encoding="utf-8"))]


def test_the_rules_catch_what_they_are_for():
    assert store_access("from storage.catalogs import load_queries\nx = ws.db\n") == [
        "line 1: imports storage.catalogs.load_queries", "line 2: uses .db"]
    assert store_access("import storage.db as d\nfrom storage import runs\n") == [
        "line 1: imports storage.db", "line 2: imports storage.runs"]
    assert store_access("from core.workspace import Workspace\nws.queries(1)\nx = 'storage.db'\n") == []
    assert core_imports_in_storage("from core.models import Tool\nfrom core import models\n") == []
    assert core_imports_in_storage("def f():\n    from core.merging import graph\n") == [
        "line 2: imports core.merging.graph"]
    assert streamlit_imports("import streamlit as st\nfrom streamlit.testing.v1 import AppTest\n") == [
        "line 1: imports streamlit", "line 2: imports streamlit.testing.v1.AppTest"]
    assert sorted(upward_imports("def f():\n    from components.charts import bar\nimport pages.runs\n")) == [
        "line 2: imports components.charts.bar", "line 3: imports pages.runs"]
    assert upward_imports("from core.overlap_charts import overlap_scatter\n") == []


def test_pages_and_components_reach_the_store_only_through_core():
    assert _modules("pages", "components"), "no page or component found"
    found = _violations(store_access, ("pages", "components"))
    assert not found, "\n".join(found)


def test_storage_imports_nothing_of_core_but_its_models():
    assert _modules("storage")
    found = _violations(core_imports_in_storage, ("storage",))
    assert not found, "\n".join(found)


def test_core_and_storage_never_import_streamlit():
    found = _violations(streamlit_imports, ("core", "storage"))
    assert not found, "\n".join(found)


def test_core_and_storage_never_import_components_or_pages():
    found = _violations(upward_imports, ("core", "storage"))
    assert not found, "\n".join(found)
