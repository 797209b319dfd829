"""How long a click takes to act while a page computes its first map, with work in the script run or as a job.

    python bench/bench_page_response.py --baseline-repo /tmp/old [--repeats 2]

Each repeat starts two apps, each on a fresh store: this checkout (maps are background jobs) and the checkout at
``--baseline-repo`` (e.g. a ``git worktree`` of a commit before core/jobs.py, where the layout ran inside the
page's script run). In headless Chromium it opens the Overlap map, waits until the UMAP layout of the demo has
started, clicks "PCA" and measures the time until the PCA map is on screen. Inline, Streamlit acts on a click
only at the script's next element update, which a layout with silent phases (numba compiling, neighbour
search) does not reach for seconds; a job is polled four times a second.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from tests.e2e.app_server import start_app, stop_app  # noqa: E402
from tests.e2e.conftest import CHROMIUM, CHROMIUM_ARGS  # noqa: E402


def click_to_pca(browser, url: str) -> float:
    page = browser.new_context(viewport={"width": 1400, "height": 1000}).new_page()
    page.goto(f"{url}/overlap_map", wait_until="domcontentloaded")
    page.get_by_text("Computing the UMAP map").first.wait_for(timeout=300_000)  # after the demo's embedding
    page.wait_for_timeout(500)
    start = time.perf_counter()
    page.locator("[data-testid='stSidebar'] label").filter(has_text="PCA").first.click()
    page.wait_for_function(
        "() => [...document.querySelectorAll('.js-plotly-plot .gtitle, .js-plotly-plot text')]"
        ".some(e => /PCA/.test(e.textContent))"
        " || [...document.querySelectorAll('[data-testid=\"stProgress\"]')]"
        ".some(e => /PCA/.test(e.innerText))"
        " || (!document.querySelector('[data-testid=\"stProgress\"]') && !!document.querySelector('.js-plotly-plot'))",
        timeout=300_000)
    seconds = time.perf_counter() - start
    page.context.close()
    return seconds


def measure(repo: Path, browser) -> float:
    with tempfile.TemporaryDirectory() as tmp:
        proc, url = start_app(f"sqlite:///{tmp}/bench.db", Path(tmp) / "streamlit.log", cwd=repo)
        try:
            return click_to_pca(browser, url)
        finally:
            stop_app(proc)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--baseline-repo", type=Path, required=True)
    ap.add_argument("--repeats", type=int, default=2)
    args = ap.parse_args()
    from playwright.sync_api import sync_playwright

    jobs, inline = [], []
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        for i in range(args.repeats):  # alternate, so a noisy moment hits both sides
            inline.append(measure(args.baseline_repo.resolve(), browser))
            jobs.append(measure(REPO, browser))
            print(f"repeat {i + 1}: in the script run {inline[-1]:.2f} s, as a job {jobs[-1]:.2f} s", flush=True)
        browser.close()
    a, b = statistics.median(inline), statistics.median(jobs)
    print(f"click on PCA until the PCA map shows, during the first UMAP layout (median of {args.repeats}):")
    print(f"  layout in the script run (baseline): {a:.2f} s")
    print(f"  layout as a background job:          {b:.2f} s")
    print(f"  ratio: {a / b:.1f}x faster to respond")


if __name__ == "__main__":
    main()
