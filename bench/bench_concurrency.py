"""Concurrent users: N browser sessions drive one app server over one SQLite store.

    python bench/bench_concurrency.py [--sessions 8] [--duration 120] [--db sqlite:////tmp/conc.db]

One headless Chromium, one context per session, all driven from one asyncio loop. The browser is Debian's
``chromium-headless-shell`` where it is installed (``apt-get install -y chromium-headless-shell``; it is what
Playwright itself runs for headless Chromium), else the full ``chromium`` the browser tests use; ``--browser PATH``
picks one (``run_bench``, which the concurrency test calls, keeps the browser tests' ``chromium`` unless told
otherwise). The sessions' browsers share the server's two cores, which no real visitor's browser does: the lighter
shell (no browser UI process work, same Blink renderer) takes less of the CPU the server needs, so it measures the
app more than the harness. The report names the browser.

Each session loops over: Catalog search (type a query, wait for the results), open a tool card's JSON schema,
switch to Runs, run trials on one free-text query on the Trials page (writes a ``trials`` run,
its items and ledger rows) and open the Timeline page (a stored timeline is shown when one exists).

Latency is measured in the page, from the action to Streamlit's script state
(``stApp[data-test-script-state]``) going back to ``notRunning`` and staying there. Afterwards the
server log is searched for "database is locked" and tracebacks, and every trials query a session
ran is looked up in the store: its run, ranking, per-candidate and report items must all be there.

Besides every interaction but the first load, the report gives the interactions from each session's second
loop on: a session's first visit to a page loads that page's frontend code, and the start line sends all
sessions through their first loop together, so the first loop is a burst no later visit repeats.
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

SEARCHES = ["convert 100 US dollars into euros", "weather forecast for Lisbon tomorrow", "send an email",
            "how far is it from Paris to Berlin", "translate hello into Spanish", "book a flight",
            "what time is it in Tokyo", "find a recipe with chicken"]
ACTION_TIMEOUT_MS = 120_000
TRIAL_TEXTS = ["How many kilometres is {n} miles?", "Convert {n} US dollars into euros",
               "What is the weather in Lisbon on day {n}?", "What is {n} times 3?"]

# Records every change of Streamlit's script state, and every message from the server, with in-page times.
# The messages matter under load: a rerun can start seconds after the click, and a short one can finish before
# React draws "running" at all, so a state change alone cannot tell "not started yet" from "already over".
OBSERVER_JS = """
(() => {
  window.__st = {starts: [], ends: [], msgs: [], state: null};
  const NativeWebSocket = window.WebSocket;
  window.WebSocket = class extends NativeWebSocket {
    constructor(...args) {
      super(...args);
      this.addEventListener('message', () => window.__st.msgs.push(performance.now()));
    }
  };
  const hook = () => {
    const app = document.querySelector('[data-testid="stApp"]');
    if (!app) { setTimeout(hook, 20); return; }
    window.__st.state = app.getAttribute('data-test-script-state');
    new MutationObserver(() => {
      const s = app.getAttribute('data-test-script-state');
      if (s === window.__st.state) return;
      if (s === 'running') window.__st.starts.push(performance.now());
      else if (window.__st.state === 'running') window.__st.ends.push(performance.now());
      window.__st.state = s;
    }).observe(app, {attributes: true, attributeFilter: ['data-test-script-state']});
  };
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', hook); else hook();
})();
"""
# Settled: the server answered since t0 (or, for an action that may not rerun at all, 2.5 s passed without an
# answer), the script is not running, and neither a state change nor a message came for ``quiet`` ms.
SETTLED_JS = """([t0, quiet, mustRerun]) => {
  const st = window.__st; if (!st) return false;
  const now = performance.now();
  const seen = [...st.starts, ...st.ends, ...st.msgs].filter(x => x >= t0);
  const answered = seen.length > 0;
  const last = Math.max(t0, ...seen);
  return st.state === 'notRunning' && (answered || (!mustRerun && now - t0 > 2500)) && now - last > quiet;
}"""
LAST_EVENT_JS = "(t0) => Math.max(0, ...[...window.__st.ends, ...window.__st.msgs].filter(x => x >= t0).map(x => x - t0))"


@dataclass
class Stats:
    latencies: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    errors: list[str] = field(default_factory=list)
    writes: list[tuple[int, str]] = field(default_factory=list)  # (session, trials query id)
    loops: int = 0
    # interactions from each session's second loop on: its first visit to each page loads that page's
    # frontend code, and the start line sends all sessions there at once
    later: list[float] = field(default_factory=list)


from tests.e2e.app_server import CHROMIUM, CHROMIUM_ARGS, start_app, stop_app  # noqa: E402 - after the sys.path set-up

# Playwright's own choice for headless Chromium (see the module docstring), where Debian's package is installed
BROWSER = shutil.which("chromium-headless-shell") or CHROMIUM


async def _now(page) -> float:
    return await page.evaluate("() => performance.now()")


async def settle(page, t0: float, timeout: float = 180.0, quiet: int = 400, *, must_rerun: bool = True) -> float:
    """Wait for the rerun caused by an action at in-page time ``t0`` to finish; returns its latency in seconds
    (action to the server's last message or the script's end). ``must_rerun=False`` for an action that may
    change nothing (clicking an option already chosen): then 2.5 s without an answer counts as settled."""
    await page.wait_for_function(SETTLED_JS, arg=[t0, quiet, must_rerun], timeout=timeout * 1000, polling=50)
    return await page.evaluate(LAST_EVENT_JS, t0) / 1000


async def _check_exceptions(page, sid: int, what: str, stats: Stats) -> None:
    boxes = page.locator('[data-testid="stException"]')
    if await boxes.count():
        text = (await boxes.first.inner_text())[:300].replace("\n", " ")
        stats.errors.append(f"session {sid} {what}: exception shown: {text}")


async def _nav(page, title: str) -> float:
    t0 = await _now(page)
    await page.locator('[data-testid="stSidebarNav"]').get_by_role("link", name=title, exact=True).click()
    return await settle(page, t0)


SHOTS = Path(tempfile.gettempdir()) / "toolatlas-conc-shots"


async def _timed(stats: Stats, sid: int, name: str, coro, page=None, loop: int = 1) -> None:
    try:
        lat = await coro
        stats.latencies[name].append(lat)
        if loop > 1:
            stats.later.append(lat)
    except Exception as exc:  # noqa: BLE001 - every failure is reported, the session goes on
        stats.errors.append(f"session {sid} {name}: {type(exc).__name__}: {str(exc).splitlines()[0][:200]}")
        if page is not None:
            SHOTS.mkdir(exist_ok=True)
            shot = SHOTS / f"s{sid}-{len(stats.errors)}-{name.replace(' ', '_')}.png"
            try:
                await page.screenshot(path=str(shot), full_page=True)
                stats.errors[-1] += f" [screenshot {shot}]"
            except Exception:  # noqa: BLE001, S110 - a screenshot is best effort
                pass


async def _search(page, text: str) -> float:
    box = page.locator('input[aria-label="Search the catalog"]:visible').last
    await box.fill(text)
    t0 = await _now(page)
    await box.press("Enter")
    lat = await settle(page, t0)
    await page.get_by_text("results in").first.wait_for()
    return lat


async def _open_card(page, row: int) -> float:
    """Pick result row ``row`` (0-based) in the results grid: its tool card replaces the top hit's."""
    # The search grid by its widget key: the Browse and Statistics tabs hold grids too, hidden, and a bare
    # "first grid" names one of those whenever the search grid is not on the page at that moment.
    grid = page.locator('.st-key-search_table [data-testid="stDataFrame"]')
    await grid.wait_for(state="visible")
    await grid.scroll_into_view_if_needed()
    box = await grid.bounding_box()
    t0 = await _now(page)
    await page.mouse.click(box["x"] + 12, box["y"] + 35 * (row + 1) + 17)  # the row-marker column
    lat = await settle(page, t0)
    await page.get_by_text("JSON schema").first.click()
    await page.locator('[data-testid="stExpanderDetails"]:visible').first.wait_for()
    return lat


async def _trials(page, text: str) -> float:
    t0 = await _now(page)
    await page.get_by_text("Free text", exact=True).first.click()
    await settle(page, t0, must_rerun=False)  # already chosen when the page kept it from the last visit
    box = page.locator(".st-key-trials_text input")  # by its key: other widgets' labels mention "the request"
    await box.fill(text)
    t0 = await _now(page)
    await box.press("Enter")
    await settle(page, t0)
    t0 = await _now(page)
    await page.get_by_role("button", name="Run trials").click()
    lat = await settle(page, t0, timeout=240)
    await page.get_by_text(text).first.wait_for()  # the request line of this run's report
    return lat


class Start:
    """Every session loads the app first; the measured period starts when the last one is in."""

    def __init__(self, sessions: int, duration: float) -> None:
        self.waiting, self.duration, self.deadline = sessions, duration, 0.0
        self.event = asyncio.Event()

    async def arrive(self) -> float:
        self.waiting -= 1
        if self.waiting == 0:
            self.deadline = time.time() + self.duration
            self.event.set()
        await self.event.wait()
        return self.deadline


async def run_session(sid: int, browser, url: str, start_line: Start, stats: Stats) -> None:
    ctx = await browser.new_context(viewport={"width": 1400, "height": 1000})
    # Eight pages and the server share two cores: a single step can legitimately take longer than Playwright's
    # 30 s default, and a timeout here would report slowness as a failure (latency is reported separately).
    ctx.set_default_timeout(ACTION_TIMEOUT_MS)
    await ctx.add_init_script(OBSERVER_JS)
    page = await ctx.new_page()
    page.on("dialog", lambda d: asyncio.ensure_future(d.dismiss()))
    try:
        start = time.perf_counter()
        await page.goto(f"{url}/catalog", wait_until="domcontentloaded")  # the root is the Start page
        await page.get_by_label("Search the catalog").first.wait_for(timeout=180_000)
        await settle(page, 0.0)
        stats.latencies["first load"].append(time.perf_counter() - start)
    except Exception as exc:  # noqa: BLE001
        stats.errors.append(f"session {sid} first load: {type(exc).__name__}: {str(exc).splitlines()[0][:200]}")
    deadline = await start_line.arrive()
    try:
        n = 0
        while n == 0 or time.time() < deadline:  # every session completes at least one full loop
            n += 1
            await _timed(stats, sid, "catalog search", _search(page, SEARCHES[(sid + n) % len(SEARCHES)]), page, n)
            await _timed(stats, sid, "open tool card", _open_card(page, 1 + (sid + n) % 3), page, n)
            await _check_exceptions(page, sid, "catalog", stats)
            await _timed(stats, sid, "switch to Runs", _nav(page, "Runs"), page, n)
            await _check_exceptions(page, sid, "runs", stats)
            await _timed(stats, sid, "switch to Trials", _nav(page, "Trials"), page, n)
            text = TRIAL_TEXTS[n % len(TRIAL_TEXTS)].format(n=f"{sid}.{n}")
            qid = "free-" + hashlib.sha256(text.encode()).hexdigest()[:10]
            before = len(stats.errors)
            await _timed(stats, sid, "run trials (1 query)", _trials(page, text), page, n)
            if len(stats.errors) == before:
                stats.writes.append((sid, qid))
            await _check_exceptions(page, sid, "trials", stats)
            await _timed(stats, sid, "switch to Timeline", _nav(page, "Timeline"), page, n)
            await _check_exceptions(page, sid, "timeline", stats)
            await _timed(stats, sid, "switch to Catalog", _nav(page, "Catalog"), page, n)
            stats.loops += 1
    except Exception as exc:  # noqa: BLE001
        stats.errors.append(f"session {sid} aborted: {type(exc).__name__}: {str(exc).splitlines()[0][:200]}")
    finally:
        await ctx.close()


async def drive(url: str, sessions: int, duration: float, stats: Stats, browser_path: str) -> None:
    from playwright.async_api import async_playwright

    async with async_playwright() as pw:
        browser = await pw.chromium.launch(executable_path=browser_path, headless=True, args=CHROMIUM_ARGS)
        # one warm-up visit builds the workspace, demo catalog and search engine (process-wide resources)
        ctx = await browser.new_context()
        page = await ctx.new_page()
        await page.goto(f"{url}/trials", wait_until="domcontentloaded")
        await page.get_by_role("button", name="Run trials").wait_for(timeout=300_000)
        await ctx.close()
        start_line = Start(sessions, duration)
        await asyncio.gather(*(run_session(i, browser, url, start_line, stats) for i in range(sessions)))
        await browser.close()


def check_writes(db_url: str, writes: list[tuple[int, str]]) -> tuple[int, list[str]]:
    """Every trials query a session ran: a done ``trials`` run holds its ranking, candidates and report,
    its ledger rows exist, and every run's ``n_items`` matches its item rows."""
    from sqlmodel import Session, select

    from storage.db import make_engine
    from storage.ledger import LLMCallRow
    from storage.tables import Run, RunItem

    engine = make_engine(db_url)
    problems: list[str] = []
    with Session(engine) as s:
        trial_runs = s.exec(select(Run).where(Run.kind == "trials")).all()
        by_qid: dict[str, list[Run]] = defaultdict(list)
        for r in trial_runs:
            for q in r.config_json.get("query_ids", []):
                by_qid[q].append(r)
        items: dict[int, list[str]] = defaultdict(list)
        for it in s.exec(select(RunItem)).all():
            items[it.run_id].append(it.item_key)
        ledger: dict[int, int] = defaultdict(int)
        for run_id in s.exec(select(LLMCallRow.run_id)).all():
            ledger[run_id] += 1
        for r in trial_runs:
            if r.n_items != len(items[r.id]):
                problems.append(f"run {r.id}: n_items {r.n_items} but {len(items[r.id])} item rows")
    for sid, qid in writes:
        runs_ = by_qid.get(qid, [])
        if not runs_:
            problems.append(f"session {sid} query {qid}: no trials run stored")
            continue
        keys = set().union(*(items[r.id] for r in runs_))
        if qid not in keys or f"{qid}@ranking" not in keys:
            problems.append(f"session {sid} query {qid}: report or ranking item missing")
        elif not any(k.startswith(f"{qid}#") for k in keys):
            problems.append(f"session {sid} query {qid}: no per-candidate items")
        if not any(ledger[r.id] for r in runs_):
            problems.append(f"session {sid} query {qid}: no ledger (llm_call) rows for its run")
        if not any(r.status == "done" for r in runs_):
            problems.append(f"session {sid} query {qid}: run not finished ({[r.status for r in runs_]})")
    engine.dispose()
    return len(writes), problems


def scan_log(log_path: Path) -> list[str]:
    """Lock errors and tracebacks the server logged while it served the sessions. What it logs after it was
    told to stop ("Stopping...") is left out: Starlette may then raise while closing a websocket that the
    browser is closing at the same moment, which no user sees."""
    text = log_path.read_text(errors="replace").split("\n  Stopping...", 1)[0]
    return [ln.strip() for ln in text.splitlines()
            if "database is locked" in ln.lower() or "Traceback" in ln or "OperationalError" in ln]


def percentile(values: list[float], q: float) -> float:
    v = sorted(values)
    return v[min(len(v) - 1, max(0, round(q * (len(v) - 1))))]


def seed_runs(db_url: str) -> None:
    """A finished eval run and a stored timeline, so the Runs and Timeline pages have a run to open."""
    cli = [sys.executable, "-m", "core.cli"]
    for args in (["eval", "demo", "--strategy", "query", "--limit", "10"],
                 ["evolve", "demo", "--limit", "3", "--seeds", "1", "--steps", "3"]):
        subprocess.run([*cli, *args, "--db", db_url, "--json"], cwd=REPO, check=True, capture_output=True)


def server_cpu_seconds(pid: int) -> float | None:
    """User + system CPU time of the app server so far (Linux /proc; None elsewhere)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


# Streamlit's own defaults for the two settings .streamlit/config.toml changes for speed: the baseline of
# --compare-defaults.
STREAMLIT_DEFAULTS = ("--runner.postScriptGC", "true", "--server.fileWatcherType", "auto")


def run_bench(sessions: int = 8, duration: float = 120.0, db_url: str | None = None, *,
              seed: bool = False, options: tuple[str, ...] = (), env: dict[str, str] | None = None,
              browser: str = CHROMIUM) -> dict:
    tmp = Path(tempfile.mkdtemp(prefix="toolatlas-conc-"))
    db_url = db_url or f"sqlite:///{tmp}/atlas.db"
    if seed:
        seed_runs(db_url)
    log_path = tmp / "streamlit.log"
    proc, url = start_app(db_url, log_path, options=options, env=env)
    stats = Stats()
    cpu = None
    wall = time.perf_counter()
    try:
        # Its own thread: under pytest a sync Playwright session may already own this thread's event loop.
        errors: list[BaseException] = []

        def main() -> None:
            try:
                asyncio.run(drive(url, sessions, duration, stats, browser))
            except BaseException as exc:  # noqa: BLE001 - re-raised in the caller's thread below
                errors.append(exc)

        worker = threading.Thread(target=main, name="sessions")
        worker.start()
        worker.join()
        cpu = server_cpu_seconds(proc.pid)
        if errors:
            raise errors[0]
    finally:
        stop_app(proc)
    wall = time.perf_counter() - wall
    n_writes, lost = check_writes(db_url, stats.writes)
    log_problems = scan_log(log_path)
    all_lat = [x for k, v in stats.latencies.items() if k != "first load" for x in v]
    return {
        "sessions": sessions, "duration_s": duration, "browser": browser, "wall_s": round(wall, 1), "loops": stats.loops,
        "latency": {k: {"n": len(v), "p50": round(statistics.median(v), 3), "p95": round(percentile(v, 0.95), 3),
                        "max": round(max(v), 3)} for k, v in stats.latencies.items() if v},
        "all_interactions": ({"n": len(all_lat), "p50": round(statistics.median(all_lat), 3),
                              "p95": round(percentile(all_lat, 0.95), 3)} if all_lat else {}),
        "after_first_loop": ({"n": len(stats.later), "p50": round(statistics.median(stats.later), 3),
                              "p95": round(percentile(stats.later, 0.95), 3)} if stats.later else {}),
        "server_cpu_s": round(cpu, 1) if cpu is not None else None,
        "interactions_per_server_cpu_s": round(len(all_lat) / cpu, 2) if cpu else None,
        "errors": stats.errors, "writes_checked": n_writes, "lost_writes": lost,
        "log_problems": log_problems, "log": str(log_path), "db": db_url,
    }


def report(out: dict) -> None:
    print(f"{out['sessions']} sessions x {out['duration_s']:.0f} s (wall {out['wall_s']} s, "
          f"{out['loops']} full loops), store {out['db']}, browser {out['browser']}")
    print(f"{'interaction':24s} {'n':>4s} {'p50 s':>7s} {'p95 s':>7s} {'max s':>7s}")
    for name, v in out["latency"].items():
        print(f"{name:24s} {v['n']:4d} {v['p50']:7.2f} {v['p95']:7.2f} {v['max']:7.2f}")
    if out["all_interactions"]:
        a = out["all_interactions"]
        print(f"{'all (excl. first load)':24s} {a['n']:4d} {a['p50']:7.2f} {a['p95']:7.2f}")
    if out.get("after_first_loop"):
        a = out["after_first_loop"]
        print(f"{'all from each 2nd loop':24s} {a['n']:4d} {a['p50']:7.2f} {a['p95']:7.2f}")
    print(f"server CPU: {out['server_cpu_s']} s, {out['interactions_per_server_cpu_s']} interactions per CPU second")
    print(f"errors: {len(out['errors'])}")
    for e in out["errors"][:20]:
        print(f"  {e}")
    print(f"server log ({out['log']}): {len(out['log_problems'])} 'database is locked'/traceback lines")
    for ln in out["log_problems"][:10]:
        print(f"  {ln}")
    print(f"writes checked: {out['writes_checked']}, lost: {len(out['lost_writes'])}")
    for p in out["lost_writes"][:10]:
        print(f"  {p}")


def _failed(out: dict) -> bool:
    return bool(out["errors"] or out["lost_writes"] or out["log_problems"])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sessions", type=int, default=8)
    parser.add_argument("--duration", type=float, default=120.0, help="seconds of concurrent use")
    parser.add_argument("--db", default=None, help="SQLAlchemy URL (default: a fresh SQLite file)")
    parser.add_argument("--no-seed", action="store_true",
                        help="skip seeding an eval run and a timeline before the sessions start")
    parser.add_argument("--compare-defaults", action="store_true",
                        help="first run the same load on Streamlit's defaults for the settings our config.toml "
                             "changes for speed (post-run GC, source watcher), then ours, and print the ratios")
    parser.add_argument("--compare-no-cache", action="store_true",
                        help="first run the same load with the store's read cache off (TOOLATLAS_READ_CACHE_MAX_AGE=0, "
                             "every page read goes to the store), then ours, and print the ratios")
    parser.add_argument("--browser", default=BROWSER,
                        help=f"the Chromium the sessions run in (default: {BROWSER})")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    if args.compare_defaults and args.compare_no_cache:
        parser.error("--compare-defaults and --compare-no-cache each need their own run")
    runs = {}
    if args.compare_defaults:
        runs["streamlit defaults"] = run_bench(args.sessions, args.duration, None, seed=not args.no_seed,
                                               options=STREAMLIT_DEFAULTS, browser=args.browser)
    if args.compare_no_cache:
        runs["read cache off"] = run_bench(args.sessions, args.duration, None, seed=not args.no_seed,
                                           env={"TOOLATLAS_READ_CACHE_MAX_AGE": "0"}, browser=args.browser)
    runs["ours"] = run_bench(args.sessions, args.duration, args.db, seed=not args.no_seed, browser=args.browser)
    if args.json:
        print(json.dumps(runs if len(runs) > 1 else runs["ours"], indent=2))
        return 1 if any(_failed(o) for o in runs.values()) else 0
    for label, out in runs.items():
        print(f"== {label}")
        report(out)
    if len(runs) > 1:
        label = next(iter(runs))
        base, ours = runs[label], runs["ours"]
        print(f"== ours / {label} (same machine, same run)")
        for what in ("p50", "p95"):
            b, o = base["all_interactions"].get(what), ours["all_interactions"].get(what)
            if b and o:
                print(f"interaction latency {what}: {o:.2f} s / {b:.2f} s = {o / b:.2f}")
        b, o = base["interactions_per_server_cpu_s"], ours["interactions_per_server_cpu_s"]
        if b and o:
            print(f"interactions per server CPU second: {o} / {b} = {o / b:.2f}")
        print(f"full loops: {ours['loops']} / {base['loops']}")
    return 1 if any(_failed(o) for o in runs.values()) else 0


if __name__ == "__main__":
    raise SystemExit(main())
