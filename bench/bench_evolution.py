"""Timeline speed, each measured against a baseline in the same run.

    python bench/bench_evolution.py [--n 120] [--datasets ../shared/datasets]

Prints two ratios:
1. Stage I over N new tools explored together (one embedding batch per iteration) vs one tool at a time;
   both give the same documentation, which is checked;
2. the size-capped k-means of Stage II vs scikit-learn's unconstrained KMeans on the same vectors
   (what the cap costs).
Tools come from Seal-Tools when present, else from the demo catalog. A fresh temporary store is used, so
the first embedding of every text is included in both arms (the warm arm runs second and is re-encoded).
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--n", type=int, default=120, help="new tools explored")
    parser.add_argument("--datasets", default=str(REPO.parent / "shared" / "datasets"))
    args = parser.parse_args()

    from core.embedding import SentenceTransformerEmbedder, encode_cached
    from core.evolution.explore import Anchors, explore_tool, explore_tools
    from core.evolution.kmeans import constrained_kmeans
    from core.evolution.offline import OfflineAdaptationOperators
    from core.importers.openai_tools import load_openai_tools
    from storage.cache import SqlVectorCache
    from storage.db import make_engine

    seal = Path(args.datasets) / "seal_tools" / "tools.json"
    path = seal if seal.exists() else REPO / "assets" / "demo" / "tools.json"
    tools = load_openai_tools(path, source=path.parent.name)
    embedder = SentenceTransformerEmbedder()
    with tempfile.TemporaryDirectory() as tmp:
        db = make_engine(f"sqlite:///{tmp}/bench.db")
        cache = SqlVectorCache(db)

        def embed(texts):
            return encode_cached(embedder, list(texts), cache)[0]

        n = min(args.n, len(tools) // 3)
        anchors_t = tuple(tools[: 2 * n])
        bodies = tuple(t.description for t in anchors_t)
        anchors = Anchors(anchors_t, bodies, embed(bodies))
        new = tools[2 * n: 3 * n]
        ops = OfflineAdaptationOperators(seed=0)
        embed([t.description for t in new])  # both arms start from the same warm bodies

        start = time.perf_counter()
        one = [explore_tool(t, t.description, anchors, ops, embed, rng=random.Random(i)) for i, t in enumerate(new)]
        single = time.perf_counter() - start
        db2 = make_engine(f"sqlite:///{tmp}/bench2.db")  # a cold cache again for the probes of the second arm
        cache2 = SqlVectorCache(db2)

        def embed2(texts):
            return encode_cached(embedder, list(texts), cache2)[0]

        embed2([t.description for t in new])
        start = time.perf_counter()
        together = explore_tools(new, [t.description for t in new], anchors, ops, embed2,
                                 rngs=[random.Random(i) for i in range(len(new))])
        batched = time.perf_counter() - start
        same = [a.after for a in one] == [b.after for b in together]
        print(f"Stage I on {len(new)} {path.parent.name} tools: one at a time {single:.2f} s, together "
              f"{batched:.2f} s -> {single / batched:.1f}x faster; same documentation: {same}")

        from sklearn.cluster import KMeans

        x = embed([t.description for t in tools[:2400]])
        k = int(np.ceil(2 * len(x) / 6))
        start = time.perf_counter()
        labels = constrained_kmeans(x, 6, seed=0)
        capped = time.perf_counter() - start
        start = time.perf_counter()
        free = KMeans(n_clusters=k, n_init=1, random_state=0).fit_predict(x)
        plain = time.perf_counter() - start
        print(f"k-means on {len(x)} tools, {k} clusters: capped at 6 {capped:.2f} s (largest "
              f"{np.bincount(labels).max()}), unconstrained {plain:.2f} s (largest {np.bincount(free).max()}) "
              f"-> ratio {capped / plain:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
