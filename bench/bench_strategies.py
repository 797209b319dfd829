"""Every retrieval strategy with the offline operators on the public benchmarks, offline memetic
latency on Seal-Tools, and population fan-out against a local chat server.

    python bench/bench_strategies.py [--limit N] [--db sqlite:///path] [--skip-quality] [--skip-fanout]

Prints a nDCG@5 / P@5 / R@5 / C@5 table per dataset (Seal-Tools test_in_domain + test_out_domain,
BFCL), seconds per query, and the fan-out speed-up of memetic (N = 6, G = 3) with a concurrent
pool versus concurrency 1, both measured in this run.
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


def quality(db_url: str, limit: int | None) -> None:
    from core.context import LLMConfig
    from core.evaluation import evaluate
    from core.settings import Settings, build_workspace
    from storage.catalogs import load_queries

    ws = build_workspace(Settings(db_url=db_url))
    for name, splits in (("seal_tools", {"test_in_domain", "test_out_domain"}), ("bfcl", None)):
        folder = DATASETS / name
        if not (folder / "tools.json").exists():
            print(f"[skip] {folder} not found")
            continue
        report = ws.import_files(folder / "tools.json", name=name, queries_path=folder / "queries.jsonl")
        queries = [q for q in load_queries(ws.db, report.query_set.id) if splits is None or q.split in splits]
        if limit and len(queries) > limit:
            queries = random.Random(0).sample(queries, limit)
        t0 = time.perf_counter()
        ws.search_engine(report.version.id)
        print(f"\n## {name}: {report.version.n_tools} tools, {len(queries)} queries (index {time.perf_counter() - t0:.1f} s)")
        print("| strategy | nDCG@5 | P@5 | R@5 | C@5 | s/query | LLM calls |")
        print("|---|---|---|---|---|---|---|")
        for strategy in STRATEGIES:
            out = evaluate(ws, report.version.id, report.query_set.id, queries, strategy=strategy, k=5,
                           llm=LLMConfig(), resume=False)
            m = out.metrics
            per_query = out.seconds / max(out.n_queries, 1)
            print(f"| {strategy} | {m['ndcg@5']:.4f} | {m['precision@5']:.4f} | {m['recall@5']:.4f} | "
                  f"{m['comprehensiveness@5']:.4f} | {per_query:.3f} | {m.get('llm_calls', 0)} |", flush=True)


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
    parser.add_argument("--skip-quality", action="store_true")
    parser.add_argument("--skip-fanout", action="store_true")
    args = parser.parse_args()
    if not args.skip_fanout:
        fanout()
    if not args.skip_quality:
        quality(args.db, args.limit)


if __name__ == "__main__":
    main()
