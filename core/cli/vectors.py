"""``toolatlas import-vectors``: bring your own embeddings (vectors computed elsewhere, one per tool or query)."""

from __future__ import annotations

from core.cli.common import add_common, emit, open_workspace


def cmd_import_vectors(args) -> int:
    from core.embeddings.precomputed import import_vectors

    ws = open_workspace(args)
    if args.name == "demo":
        ws.ensure_demo()
    done = import_vectors(ws, args.name, args.vectors, model_id=args.model_id, keys_path=args.keys,
                          query_set=args.queries, version=args.version)
    out = {"catalog": done.catalog, "model_id": done.model_id, "target": done.target, "of": done.name,
           "vectors": done.count, "dim": done.dim}
    if not args.json:
        print(f"stored {done.count} {done.dim}-dimensional vectors for the {done.target} of {done.name} "
              f"under model id {done.model_id!r}")
        use = f"--embedder precomputed --model {done.model_id}"
        print(f"search, maps and runs use them with {use} (or TOOLATLAS_EMBEDDER=precomputed, "
              f"TOOLATLAS_EMBEDDING_MODEL={done.model_id})")
        return 0
    return emit(out, True)


def register(sub) -> None:
    p = sub.add_parser(
        "import-vectors", help="store precomputed vectors for a catalog's tools (or a query set's queries)",
        description="Validate and store one vector per tool of a catalog version (or, with --queries, per query "
                    "of a query set) under a model id. Rows follow --keys, the parquet file's key/id column, or "
                    "the stored order of the tools or queries. Checked whole first (count, keys, dimension, "
                    "NaN/inf, all-zero rows); on any error nothing is stored. Query vectors for searches "
                    "come from --queries imports, or from an OpenAI-compatible endpoint serving the same "
                    "model id (--embedding-base-url / TOOLATLAS_EMBEDDING_BASE_URL); otherwise a search with "
                    "a text that has no vector is an error.")
    p.add_argument("name", help="catalog name")
    p.add_argument("vectors", help="a .npy matrix (one row per key) or a .parquet file (a 'vector'/'embedding' "
                                   "column of lists or one column per dimension; optional 'key'/'id' column)")
    p.add_argument("--model-id", required=True, help="the model the vectors were computed with (their cache key)")
    p.add_argument("--keys", help="file naming the rows: one tool key (or query id) per line, or a JSON list")
    p.add_argument("--queries", metavar="QUERY_SET", help="the vectors are of this query set's queries")
    p.add_argument("--version", type=int, help="catalog version number (default: the latest)")
    p.add_argument("--json", action="store_true")
    add_common(p)
    p.set_defaults(func=cmd_import_vectors)
