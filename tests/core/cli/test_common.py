"""The options and lookups every ``toolatlas`` command shares."""

import pytest

from core.cli.common import llm_config, pick_query_set


def test_llm_transport_options_are_passed_and_kept_out_of_the_run_identity():
    from argparse import Namespace

    base = dict(llm="openai", base_url="http://127.0.0.1:9/v1", llm_model="m", replay=False,
                llm_timeout=None, llm_retries=None, llm_concurrency=None)
    plain = llm_config(Namespace(**base))
    tuned = llm_config(Namespace(**{**base, "llm_timeout": 5.0, "llm_retries": 0, "llm_concurrency": 2}))
    assert plain.options == {} and tuned.options == {"timeout": 5.0, "max_retries": 0, "concurrency": 2}
    assert tuned.identity() == plain.identity()  # a retuned client still resumes the same run
    with pytest.raises(ValueError, match="--llm openai only"):
        llm_config(Namespace(**{**base, "llm": "offline", "llm_retries": 2}))


def test_query_set_is_chosen_explicitly_never_silently(db, hashing_embedder, tiny_tools, tiny_queries):
    from core.workspace import Workspace
    from storage.catalogs import import_queries

    ws = Workspace(db, hashing_embedder)
    ws.import_tools("shop", tiny_tools)
    with pytest.raises(ValueError, match="has no query set"):
        pick_query_set(ws, "shop", None)
    assert pick_query_set(ws, "shop", None, required=False) is None
    import_queries(db, "shop", "beta", tiny_queries)
    assert pick_query_set(ws, "shop", None).name == "beta"  # the only one
    import_queries(db, "shop", "alpha", tiny_queries)
    with pytest.raises(ValueError, match=r"several query sets \(alpha, beta\); choose one with --query-set"):
        pick_query_set(ws, "shop", None)
    assert pick_query_set(ws, "shop", "beta").name == "beta"
    import_queries(db, "shop", "shop", tiny_queries)
    assert pick_query_set(ws, "shop", None).name == "shop"  # the one named after the catalog
    with pytest.raises(ValueError, match="no query set 'gamma'; it has: alpha, beta, shop"):
        pick_query_set(ws, "shop", "gamma")


def test_progress_printer_draws_a_bar_from_absolute_counts():
    import io

    from core.cli.common import progress_printer

    stream = io.StringIO()
    report = progress_printer("embedding", stream)
    for done in (2, 2, 5):
        report(done, 5)
    report(1, 3)  # a report after the bar finished starts a new one
    report(3, 3)
    import re

    counts = [(int(a), int(b)) for a, b in re.findall(r"\| (\d+)/(\d+) \[", stream.getvalue())]
    assert stream.getvalue().startswith("\rembedding:")
    assert (5, 5) in counts and counts[-1] == (3, 3) and all(n <= total for n, total in counts)
