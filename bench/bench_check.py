"""`toolatlas check` against `toolatlas eval` on the same queries, embeddings cached.

    python bench/bench_check.py [--queries 300] [--repeat 1]

BASE: Seal-Tools (4,076 tools); NEW: a realistic edit of it (30 tools removed, 10 renamed, 40 descriptions
reworded, 10 tools given a new required parameter, 20 added as near-copies under new names). Both versions
are stored and embedded once first; then `check seal@v1 seal@v2 --queries Q` (both versions searched, the
candidate stage and pair judge, the diff and the doc ratings; no HTML report) and `eval seal --version 1` on
the same queries (one version searched, the run stored) are timed in this process. Prints both times and
their ratio (target: check ≤ 2× eval).
"""

from __future__ import annotations

import argparse
import dataclasses
import io
import json
import random
import re
import sys
import tempfile
import time
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from core.cli import main  # noqa: E402
from core.importers.openai_tools import load_openai_tools  # noqa: E402

DATA = Path(__file__).resolve().parents[2] / "shared" / "datasets" / "seal_tools"


def _snake(name: str) -> str:
    return re.sub(r"(?<=[a-z0-9])([A-Z])", r"_\1", name).lower()


def edited(tools, gold: set[str], seed: int = 0):
    """A realistic next version: removals, renames, rewordings, a new required parameter, near-copies."""
    rng = random.Random(seed)
    pool = [t for t in tools if t.key not in gold]  # the gold keys stay, so every query stays answerable
    picked = rng.sample(pool, 110)
    removed = {t.key for t in picked[:30]}
    renamed = {t.key for t in picked[30:40]}
    reworded = {t.key for t in picked[40:80]}
    required = {t.key for t in picked[80:90]}
    copies = picked[90:110]
    out = []
    for t in tools:
        if t.key in removed:
            continue
        if t.key in renamed:
            t = dataclasses.replace(t, key=t.key + "V2", name=t.name + "V2")
        elif t.key in reworded:
            t = dataclasses.replace(t, description="Use this to " + t.description[:1].lower() + t.description[1:])
        elif t.key in required:
            props = {**t.parameters.get("properties", {}), "api_token": {"type": "string",
                                                                           "description": "Token of the caller"}}
            t = dataclasses.replace(t, parameters={**t.parameters, "properties": props,
                                                   "required": [*t.required, "api_token"]})
        out.append(t)
    # a second copy under the snake_case spelling of the name (analyzeEvidence -> analyze_evidence)
    out += [dataclasses.replace(t, key=_snake(t.name), name=_snake(t.name)) for t in copies
            if _snake(t.name) not in {x.key for x in tools}]
    return out


def timed(argv: list[str]) -> tuple[float, int]:
    start = time.perf_counter()
    with redirect_stdout(io.StringIO()), redirect_stderr(io.StringIO()):
        code = main(argv)
    return time.perf_counter() - start, code


def run(n_queries: int, repeat: int) -> None:
    tools = load_openai_tools(DATA / "tools.json", source="seal")
    lines = [json.loads(x) for x in (DATA / "queries.jsonl").read_text().splitlines() if x.strip()]
    lines = [x for x in lines if x["split"] == "test_in_domain"][:n_queries]
    gold = {g for x in lines for g in x["gold"]}
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        db = f"sqlite:///{tmp / 'bench.db'}"
        base, new, queries = tmp / "v1.json", tmp / "v2.json", tmp / "q.jsonl"
        base.write_text(json.dumps([t.to_openai() for t in tools]))
        new.write_text(json.dumps([t.to_openai() for t in edited(tools, gold)]))
        queries.write_text("\n".join(json.dumps(x) for x in lines))
        start = time.perf_counter()
        for path in (base, new):
            assert timed(["import", str(path), "--name", "seal", "--db", db])[1] == 0
        assert timed(["index", "seal", "--version", "1", "--db", db])[1] == 0
        assert timed(["index", "seal", "--version", "2", "--db", db])[1] == 0
        print(f"stored and embedded both versions: {time.perf_counter() - start:.1f} s (not timed below)")
        check = ["check", "seal@v1", "seal@v2", "--queries", str(queries), "--db", db, "--json"]
        evaluate = ["eval", "seal", "--version", "1", "--queries", str(queries), "-k", "5", "--db", db, "--json",
                    "--fresh"]
        timed(check)  # warm: query vectors cached, model loaded once in this process
        timed(evaluate)
        t_check = min(timed(check)[0] for _ in range(repeat))
        t_eval = min(timed(evaluate)[0] for _ in range(repeat))
        with redirect_stderr(io.StringIO()):
            out = io.StringIO()
            with redirect_stdout(out):
                main(check)
        result = json.loads(out.getvalue())
    print(f"check: {t_check:.2f} s  ({result['verdict']}; {sum(o['same'] for o in result['overlaps'])} new overlaps, "
          f"{len(result['changes']['breaking'])} breaking, {len(result['retrieval']['regressions'])} regressions)")
    print(f"eval (baseline, same queries): {t_eval:.2f} s")
    print(f"ratio check / eval: {t_check / t_eval:.2f}x (target <= 2x)")


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--queries", type=int, default=300)
    ap.add_argument("--repeat", type=int, default=1)
    a = ap.parse_args()
    if not (DATA / "tools.json").exists():
        sys.exit(f"{DATA} not present: nothing to measure")
    run(a.queries, a.repeat)
