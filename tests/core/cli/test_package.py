"""The ``toolatlas`` package layout: each command module stands alone, so no import cycle can come back."""

import pkgutil
import subprocess
import sys
from pathlib import Path

import pytest

import core.cli
from core.cli.entry import COMMAND_MODULES, build_parser

REPO = Path(__file__).resolve().parents[3]
NOT_COMMANDS = {"__main__", "common", "entry"}
COMMANDS = sorted(m.name for m in pkgutil.iter_modules(core.cli.__path__) if m.name not in NOT_COMMANDS)


def _cli_modules_loaded_by(module: str) -> set[str]:
    """The ``core.cli`` modules a fresh interpreter holds after importing ``module`` and nothing else."""
    code = (f"import importlib, sys; importlib.import_module({module!r}); "
            "print(' '.join(m for m in sys.modules if m == 'core.cli' or m.startswith('core.cli.')))")
    done = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    return set(done.stdout.split())


def test_the_command_modules_are_the_ones_the_entry_registers():
    assert COMMANDS == ["app", "catalogs", "check", "evaluate", "evolve", "grid", "maps", "mcp", "merge", "report", "trials",
                        "vectors"]
    assert sorted(m.__name__.rsplit(".", 1)[1] for m in COMMAND_MODULES) == COMMANDS
    assert all(callable(m.register) for m in COMMAND_MODULES)


@pytest.mark.parametrize("name", COMMANDS)
def test_a_command_module_imports_no_other_command_module(name):
    assert _cli_modules_loaded_by(f"core.cli.{name}") == {"core.cli", "core.cli.common", f"core.cli.{name}"}


def test_common_and_the_package_import_no_command_module():
    assert _cli_modules_loaded_by("core.cli.common") == {"core.cli", "core.cli.common"}
    assert _cli_modules_loaded_by("core.cli") == {"core.cli"}


def test_every_command_is_registered_once_in_help_order():
    sub = next(a for a in build_parser()._actions if a.dest == "command")
    assert list(sub.choices) == ["app", "import", "import-benchmark", "doc-quality", "index", "search", "catalogs", "export",
                                 "delete", "import-vectors", "map", "eval", "score", "grid", "merge", "import-mcp", "trials",
                                 "evolve",
                                 "check", "report"]


def test_python_dash_m_runs_the_same_command():
    done = subprocess.run([sys.executable, "-m", "core.cli", "--help"], cwd=REPO, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0 and "usage: toolatlas" in done.stdout and "import-mcp" in done.stdout
