"""``toolatlas app``: start the web app from wherever the package is installed, no checkout needed.

The app (``app.py`` with ``pages/``) sits next to ``core/``, in a checkout and in site-packages alike (the wheel
ships it so, see setup.py), as ``assets/`` does for :data:`core.workspace.DEMO_DIR` and the demo MCP server. The
command runs ``python -m streamlit run`` on that ``app.py``; Streamlit reads the ``.streamlit/config.toml`` beside
the script it runs (the app's speed settings), then the one in the current folder, then environment variables and
flags, which win. This process becomes the server (``exec``): a signal that stops ``toolatlas app`` stops it."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from core.cli.common import add_db

APP_SCRIPT = Path(__file__).resolve().parents[2] / "app.py"


def streamlit_command(args: argparse.Namespace, *, script: Path = APP_SCRIPT) -> list[str]:
    """The ``python -m streamlit run`` command line for ``args``: ``--port`` and ``--address`` as Streamlit's
    server flags, then the Streamlit flags given after ``--`` (later flags win)."""
    if not script.is_file():
        raise FileNotFoundError(f"the app's script is missing at {script}: reinstall toolatlas")
    extra = list(args.streamlit_args)
    if extra and extra[0] == "--":
        extra = extra[1:]
    if extra and not extra[0].startswith("--"):
        raise ValueError(f"toolatlas app passes only Streamlit flags after --, such as --theme.base dark; got {extra[0]!r}")
    cmd = [sys.executable, "-m", "streamlit", "run", str(script), "--server.address", args.address]
    if args.port is not None:
        cmd += ["--server.port", str(args.port)]
    return cmd + extra


def cmd_app(args) -> int:
    cmd = streamlit_command(args)
    env = dict(os.environ)
    if args.db:
        env["TOOLATLAS_DB_URL"] = args.db
    sys.stderr.write(f"toolatlas app: {' '.join(cmd[1:])}\n")
    sys.stderr.flush()
    os.execve(sys.executable, cmd, env)  # never returns
    return 0  # pragma: no cover


def register(sub) -> None:
    """Add ``app`` to ``sub`` (the ``toolatlas`` subparsers)."""
    p = sub.add_parser("app", help="start the web app (Streamlit) on this machine",
                       description="Start the web app from the installed package, on the demo catalog and the store "
                                   "(--db, else TOOLATLAS_DB_URL, else the per-user SQLite file). Streamlit flags go "
                                   "after --, e.g. toolatlas app --port 8502 -- --theme.base dark")
    p.add_argument("--port", type=int, metavar="N",
                   help="port to serve on (default: Streamlit's 8501, or the next free one)")
    p.add_argument("--address", default="127.0.0.1", metavar="ADDR",
                   help="address to listen on (default 127.0.0.1, this machine only; 0.0.0.0 for every interface)")
    add_db(p)
    p.add_argument("streamlit_args", nargs=argparse.REMAINDER, help="Streamlit flags, after --")
    p.set_defaults(func=cmd_app)
