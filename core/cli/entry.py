"""The ``toolatlas`` parser, built from the command modules, and :func:`main`. Only this module imports the
command modules; they import :mod:`core.cli.common` and never each other or this module."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from core.cli import app, catalogs, check, evaluate, evolve, grid, maps, mcp, merge, report, trials, vectors

# The order of the commands in ``toolatlas --help``.
COMMAND_MODULES = (app, catalogs, vectors, maps, evaluate, grid, merge, mcp, trials, evolve, check, report)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="toolatlas", description="Explore LLM tool catalogs and debug tool retrieval.")
    sub = parser.add_subparsers(dest="command", required=True)
    for module in COMMAND_MODULES:
        module.register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    from core.importers.errors import CatalogImportError

    args = build_parser().parse_args(argv)
    try:
        return args.func(args)
    except (CatalogImportError, ValueError, FileNotFoundError) as exc:
        print(f"toolatlas: error: {exc}", file=sys.stderr)
        return 2
