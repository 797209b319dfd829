"""UMAP map of a large catalog: UMAP's own NN-descent neighbours vs exact FAISS neighbours passed in.

    python bench/bench_projection.py [--n 40000] [--dim 384]

Each arm runs in a fresh Python process, as a user's first map after starting the app does (numba
compiles UMAP's kernels on first use, which is part of what a user waits for). Vectors are unit-length
points around 400 random centres, a stand-in for embeddings of tools that come in families. Prints each
arm's seconds, its longest wait between two progress reports, the ratio, and each map's quality: the
share of a point's 15 neighbours on the map that are among its 15 nearest tools by cosine.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]

ARM = """
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
    rng = np.random.default_rng(0)
    rows = rng.choice(len(x), size=min(sample, len(x)), replace=False)
    sims = x[rows] @ x.T
    sims[np.arange(len(rows)), rows] = -np.inf
    true = np.argsort(-sims, axis=1)[:, :k]
    d = ((coords[rows, None, :] - coords[None, :, :]) ** 2).sum(-1)
    d[np.arange(len(rows)), rows] = np.inf
    mapped = np.argsort(d, axis=1)[:, :k]
    return float(np.mean([len(set(a) & set(b)) / k for a, b in zip(true, mapped, strict=True)]))


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--n", type=int, default=40_000)
    parser.add_argument("--dim", type=int, default=384)
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    centres = rng.normal(size=(400, args.dim))
    x = centres[rng.integers(0, 400, args.n)] + rng.normal(scale=0.6, size=(args.n, args.dim))
    x = (x / np.linalg.norm(x, axis=1, keepdims=True)).astype(np.float32)
    with tempfile.TemporaryDirectory() as tmp:
        data = str(Path(tmp) / "x.npy")
        np.save(data, x)
        results, coords = {}, {}
        for name, own in (("umap nn-descent", True), ("faiss exact knn", False)):
            out = str(Path(tmp) / f"{own}.npy")
            code = ARM.format(repo=str(REPO), data=data, own=own, out=out)
            done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
            results[name] = json.loads(done.stdout.strip().splitlines()[-1])
            coords[name] = np.load(out)
            r = results[name]
            print(f"{name:>16}: {r['seconds']:6.1f} s, {r['reports']} progress reports, "
                  f"longest silence {r['longest_silence']:.1f} s, "
                  f"15-NN kept on the map {kept_neighbours(x, coords[name]):.3f}")
    base, new = results["umap nn-descent"]["seconds"], results["faiss exact knn"]["seconds"]
    print(f"{args.n:,} tools: {base / new:.2f}x faster with exact FAISS neighbours")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
