"""``toolatlas report RUN_ID -o OUT.html``: any stored eval, merge, trials or timeline run as one self-contained
HTML file (see :mod:`core.run_report`). Exit 2 on an unknown id or a kind without a report; then nothing is
written."""

from __future__ import annotations

import sys
from pathlib import Path

from core.cli.common import add_common, open_workspace


def cmd_report(args) -> int:
    from core.run_report import run_report_html

    out = Path(args.out)
    if out.is_dir():
        raise ValueError(f"-o {args.out}: is a directory; give a file name such as report.html")
    if not out.parent.is_dir():
        raise ValueError(f"-o {args.out}: folder {str(out.parent)!r} does not exist")
    doc = run_report_html(open_workspace(args), args.run_id)  # built whole before anything is written
    out.write_text(doc, encoding="utf-8")
    sys.stderr.write(f"report: {out}\n")
    return 0


def register(sub) -> None:
    """Add ``report`` to ``sub`` (the ``toolatlas`` subparsers)."""
    p = sub.add_parser("report", help="write a stored run (eval, merge, trials, timeline) as a self-contained HTML file",
                       description="Write stored run RUN_ID (an eval, merge, trials or timeline run; ids are in the "
                                   "Runs page and in each command's output) as one HTML file that opens offline: a "
                                   "one-line summary, its metrics and figures. Nothing is run again.")
    p.add_argument("run_id", metavar="RUN_ID", type=int, help="the stored run's id")
    p.add_argument("-o", "--out", metavar="OUT.html", required=True, help="the HTML file to write")
    add_common(p)
    p.set_defaults(func=cmd_report)
