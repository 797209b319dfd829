"""``toolatlas``: the headless entry point. Results land in the same store the app reads.

One module per command group (:mod:`~core.cli.app`, :mod:`~core.cli.catalogs`, :mod:`~core.cli.evaluate`,
:mod:`~core.cli.merge`, :mod:`~core.cli.mcp`, :mod:`~core.cli.trials`, :mod:`~core.cli.evolve`), each with
``register(subparsers)``; the options and helpers they share live in :mod:`core.cli.common`; :mod:`core.cli.entry`
builds the parser.
This package imports none of them, so importing one command module loads only it and ``common``."""

from __future__ import annotations

from collections.abc import Sequence


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``toolatlas`` with ``argv`` (default: the process's arguments); returns the exit status."""
    from core.cli.entry import main as run

    return run(argv)
