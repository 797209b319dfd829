"""One session's script time per interaction, this tree against a baseline revision, in the same run.

    python bench/bench_page_scripts.py [--loops 4] [--baseline no-cache | REV]

The loop of bench_concurrency (Catalog search, Runs, Trials with one free-text query, Timeline, back to the
Catalog) is driven through Streamlit's AppTest, one session, no browser: each interaction is timed from the
widget change to the end of the page's script run (for "run trials", to the run's report, background job
included), and the SQL statements it sent are counted. The first loop warms process-wide resources (the
model, imports) and is left out. The baseline is this tree with the store's read cache off
(``TOOLATLAS_READ_CACHE_MAX_AGE=0``, the default ``no-cache``) or ``git archive REV`` unpacked in a temporary
folder; each on a store seeded by its own CLI (one eval run, one timeline), one after the other in fresh
processes.
AppTest runs every interaction as a whole-page run (it has no fragments), so this measures script work, not
what a browser waits for; bench_concurrency measures that.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from collections import Counter, defaultdict
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SEARCHES = ["convert 100 US dollars into euros", "weather forecast for Lisbon tomorrow", "send an email",
            "how far is it from Paris to Berlin", "translate hello into Spanish", "book a flight"]


def drive(tree: Path, db_url: str, loops: int) -> dict:
    """In a fresh process whose sys.path starts at ``tree``: the interactions' script seconds and statements."""
    os.environ["TOOLATLAS_DB_URL"] = db_url
    from sqlalchemy import event
    from sqlalchemy.engine import Engine
    from streamlit.testing.v1 import AppTest

    from tests.pages.conftest import settle

    current = {"name": None}
    sql: Counter = Counter()

    @event.listens_for(Engine, "before_cursor_execute")
    def _count(*_):
        if current["name"]:
            sql[current["name"]] += 1

    seconds: dict[str, list[float]] = defaultdict(list)
    at = AppTest.from_file(str(tree / "app.py"), default_timeout=300)

    def step(name: str, action, record: bool) -> None:
        current["name"] = name if record else None
        start = time.perf_counter()
        action()
        if record:
            seconds[name].append(time.perf_counter() - start)
        current["name"] = None
        assert not at.exception, at.exception

    def trials(n: int) -> None:
        at.radio(key="trials_mode").set_value("Free text").run()
        at.text_input(key="trials_text").input(f"Convert {n}.5 US dollars into euros").run()

    at.run()
    settle(at.switch_page("pages/catalog.py").run())
    for n in range(loops + 1):
        rec = n > 0
        text = SEARCHES[n % len(SEARCHES)]
        step("catalog search", lambda text=text: at.text_input(key="search_query").input(text).run(), rec)
        step("switch to Runs", lambda: at.switch_page("pages/runs.py").run(), rec)
        step("switch to Trials", lambda: at.switch_page("pages/trials.py").run(), rec)
        step("trials: choose and type", lambda n=n: trials(n), rec)
        step("run trials (to report)", lambda: settle(at.button(key="trials_run").click().run()), rec)
        step("switch to Timeline", lambda: at.switch_page("pages/timeline.py").run(), rec)
        step("switch to Catalog", lambda: at.switch_page("pages/catalog.py").run(), rec)
    return {name: {"median_s": statistics.median(v), "sql": sql[name] / len(v)} for name, v in seconds.items()}


def _seed(tree: Path, db_url: str) -> None:
    cli = [sys.executable, "-m", "core.cli"]
    for args in (["eval", "demo", "--strategy", "query", "--limit", "10"],
                 ["evolve", "demo", "--limit", "3", "--seeds", "1", "--steps", "3"]):
        subprocess.run([*cli, *args, "--db", db_url, "--json"], cwd=tree, check=True, capture_output=True)


def measure(tree: Path, loops: int, workdir: Path, label: str, env: dict[str, str] | None = None) -> dict:
    db_url = f"sqlite:///{workdir / f'{label}.db'}"
    _seed(tree, db_url)
    out = workdir / f"{label}.json"
    code = (f"import sys, json; sys.path.insert(0, {str(tree)!r}); sys.path.insert(1, {str(REPO / 'bench')!r}); "
            f"import bench_page_scripts as b; json.dump(b.drive(__import__('pathlib').Path({str(tree)!r}), "
            f"{db_url!r}, {loops}), open({str(out)!r}, 'w'))")
    subprocess.run([sys.executable, "-c", code], cwd=tree, check=True, stderr=subprocess.DEVNULL,
                   env={**os.environ, **(env or {})})
    return json.loads(out.read_text())


def baseline_tree(rev: str, workdir: Path) -> Path:
    tree = workdir / "baseline"
    tree.mkdir()
    archive = subprocess.run(["git", "archive", "--format=tar", rev], cwd=REPO, check=True, capture_output=True)
    tar_path = workdir / "baseline.tar"
    tar_path.write_bytes(archive.stdout)
    with tarfile.open(tar_path) as tar:
        tar.extractall(tree, filter="data")
    return tree


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--loops", type=int, default=4, help="measured loops (one more warms up)")
    parser.add_argument("--baseline", default="no-cache",
                        help="no-cache: this tree with the read cache off (the default); else a git revision")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="toolatlas-scripts-") as tmp:
        workdir = Path(tmp)
        if args.baseline == "no-cache":
            base = measure(REPO, args.loops, workdir, "baseline", env={"TOOLATLAS_READ_CACHE_MAX_AGE": "0"})
        else:
            base = measure(baseline_tree(args.baseline, workdir), args.loops, workdir, "baseline")
        ours = measure(REPO, args.loops, workdir, "ours")
    if args.json:
        print(json.dumps({"baseline": base, "ours": ours}, indent=2))
        return 0
    print(f"one session, median script seconds per interaction over {args.loops} loops; baseline {args.baseline}")
    print(f"{'interaction':26s} {'baseline s':>10s} {'ours s':>8s} {'ratio':>6s} {'SQL base':>9s} {'SQL ours':>9s}")
    for name in base:
        b, o = base[name], ours.get(name, {"median_s": float("nan"), "sql": float("nan")})
        print(f"{name:26s} {b['median_s']:10.3f} {o['median_s']:8.3f} {o['median_s'] / b['median_s']:6.2f} "
              f"{b['sql']:9.1f} {o['sql']:9.1f}")
    total_b = sum(v["median_s"] for v in base.values())
    total_o = sum(v["median_s"] for v in ours.values())
    print(f"{'one loop':26s} {total_b:10.3f} {total_o:8.3f} {total_o / total_b:6.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
