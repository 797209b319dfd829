"""Every retrieval strategy with the offline operators on the demo catalog and the public benchmarks, offline
memetic latency, and population fan-out against a local chat server.

    python bench/bench_strategies.py [--limit N] [--db sqlite:///path] [--datasets demo,seal_tools,bfcl]
                                     [--strategies query,single_pass,...] [--skip-quality] [--skip-fanout]

Prints a nDCG@5 / P@5 / R@5 / C@5 table per dataset (the demo's test split, Seal-Tools test_in_domain +
test_out_domain, BFCL), seconds per query, for strategies with a fitness the fitness–truth rank correlation
(ρ: mean over queries of Spearman's ρ between each scored member's fitness and its nDCG@5 against gold, with
the number of queries where both varied), and each strategy's nDCG@5 minus single_pass's measured in the same
run; then the fan-out speed-up of memetic (N = 6, G = 3) with a concurrent pool versus concurrency 1, both
measured in this run. ``--limit`` samples that many queries per dataset with a fixed seed.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
DATASETS = REPO.parent / "shared" / "datasets"
STRATEGIES = ["query", "single_pass", "dbd", "ibi", "scattershot", "memetic", "memetic_v2", "reinvoke", "toolscope"]
DATASET_SPLITS = {"demo": {"test"}, "seal_tools": {"test_in_domain", "test_out_domain"}, "bfcl": None}


def _dataset(ws, name: str):
    """(version id, query set id, queries of the reported splits) of one dataset, or None when absent."""
    from storage.catalogs import load_queries

    if name == "demo":
        info = ws.ensure_demo()
        query_set = next(s for s in ws.query_sets(info.name) if s.name == "demo")
        version_id = info.latest.id
    else:
        folder = DATASETS / name
        if not (folder / "tools.json").exists():
            print(f"[skip] {folder} not found")
            return None
        report = ws.import_files(folder / "tools.json", name=name, queries_path=folder / "queries.jsonl")
        version_id, query_set = report.version.id, report.query_set
    splits = DATASET_SPLITS[name]
    return version_id, query_set.id, [q for q in load_queries(ws.db, query_set.id) if splits is None or q.split in splits]


def quality(db_url: str, limit: int | None, datasets: list[str], strategies: list[str]) -> None:
    from core.context import LLMConfig
    from core.evaluation import evaluate
    from core.settings import Settings, build_workspace

    ws = build_workspace(Settings(db_url=db_url))
    for name in datasets:
        found = _dataset(ws, name)
        if found is None:
            continue
        version_id, query_set_id, queries = found
        if limit and len(queries) > limit:
            queries = random.Random(0).sample(queries, limit)
        t0 = time.perf_counter()
        engine = ws.search_engine(version_id)
        print(f"\n## {name}: {len(engine.tools)} tools, {len(queries)} queries (index {time.perf_counter() - t0:.1f} s)")
        print("| strategy | nDCG@5 | P@5 | R@5 | C@5 | vs single_pass | fitness–truth ρ (queries) | s/query | LLM calls |")
        print("|---|---|---|---|---|---|---|---|---|")
        baseline = None
        for strategy in strategies:
            out = evaluate(ws, version_id, query_set_id, queries, strategy=strategy, k=5, llm=LLMConfig(),
                           resume=False)
            m = out.metrics
            if strategy == "single_pass":
                baseline = m["ndcg@5"]
            per_query = out.seconds / max(out.n_queries, 1)
            delta = "" if baseline is None or strategy == "single_pass" else f"{m['ndcg@5'] - baseline:+.4f}"
            rho = m.get("fitness_truth_spearman")
            truth = "" if "fitness_truth_queries" not in m else (
                f"{rho:+.3f} ({m['fitness_truth_queries']})" if rho is not None else f"n/a ({m['fitness_truth_queries']})")
            print(f"| {strategy} | {m['ndcg@5']:.4f} | {m['precision@5']:.4f} | {m['recall@5']:.4f} | "
                  f"{m['comprehensiveness@5']:.4f} | {delta} | {truth} | {per_query:.3f} | {m.get('llm_calls', 0)} |",
                  flush=True)


class SlowChat(BaseHTTPRequestHandler):
    """Answers every chat completion after 200 ms with a usable description block."""

    def log_message(self, *args):
        pass

    def do_POST(self):  # noqa: N802
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        time.sleep(0.2)
        prompt = body["messages"][-1]["content"]
        # the query asks for two things, so the pseudo-tool prompt gets two tools (two lineages)
        n = 6 if "different descriptions" in prompt else 2 if "Imagine the tools" in prompt else 1
        text = " ".join(f"{{BEGIN}} Tool that looks up weather forecasts and converts currency, variant {i} {{END}}"
                        for i in range(n))
        payload = json.dumps({"id": "x", "object": "chat.completion", "created": 0, "model": body["model"],
                              "choices": [{"index": 0, "finish_reason": "stop",
                                           "message": {"role": "assistant", "content": text}}],
                              "usage": {"prompt_tokens": 1, "completion_tokens": 1}}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)


def fanout() -> None:
    from core.embedding import SentenceTransformerEmbedder
    from core.importers.openai_tools import load_openai_tools
    from core.llm.ledger import MemoryLedger
    from core.llm.openai_backend import OpenAIChatBackend
    from core.llm.prompted import PromptedOperators
    from core.search.engine import SearchEngine
    from core.strategies.registry import make_strategy
    from core.workspace import DEMO_DIR

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), SlowChat)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{httpd.server_address[1]}/v1"
    engine = SearchEngine.build(load_openai_tools(DEMO_DIR / "tools.json"), SentenceTransformerEmbedder())
    query = "What's 200 dollars in euros, and will it rain in Lisbon tomorrow?"
    times = {}
    for workers in (1, 8):
        ops = PromptedOperators(OpenAIChatBackend(url, "slow", "k", concurrency=workers), MemoryLedger(), seed=0)
        strategy = make_strategy("memetic", engine, context={"operators": ops}, population=6, generations=3,
                                 threshold=2.0, max_workers=workers, parallel_lineages=workers > 1)
        start = time.perf_counter()
        strategy.retrieve(query, 5)
        times[workers] = time.perf_counter() - start
        print(f"[fan-out] memetic N=6 G=3, concurrency {workers}: {times[workers]:.2f} s, "
              f"{len(ops.ledger.records)} calls", flush=True)
    print(f"[fan-out] speed-up {times[1] / times[8]:.1f}x (target >= 4x)")
    httpd.shutdown()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--limit", type=int, help="queries per dataset (sampled with a fixed seed)")
    parser.add_argument("--db", default="sqlite:////tmp/toolatlas-bench.db")
    parser.add_argument("--datasets", default="demo,seal_tools,bfcl",
                        help=f"comma-separated, of: {', '.join(DATASET_SPLITS)}")
    parser.add_argument("--strategies", default=",".join(STRATEGIES),
                        help="comma-separated; single_pass first gives every later row its nDCG@5 difference")
    parser.add_argument("--skip-quality", action="store_true")
    parser.add_argument("--skip-fanout", action="store_true")
    args = parser.parse_args()
    datasets = [d for d in args.datasets.split(",") if d]
    unknown = sorted(set(datasets) - set(DATASET_SPLITS))
    if unknown:
        parser.error(f"unknown dataset {unknown[0]!r}; valid: {', '.join(DATASET_SPLITS)}")
    if not args.skip_fanout:
        fanout()
    if not args.skip_quality:
        quality(args.db, args.limit, datasets, [s for s in args.strategies.split(",") if s])


if __name__ == "__main__":
    main()
