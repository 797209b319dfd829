"""The store-wide lock: one holder at a time across threads and processes, so two processes opening a fresh
store (two grid shards, the app beside the CLI) create its tables and load the demo once."""

import subprocess
import sys
import threading
from pathlib import Path

import pytest

from storage.db import make_engine, store_lock

REPO = Path(__file__).resolve().parents[2]


@pytest.mark.pg
def test_a_second_holder_waits_until_the_first_lets_go(test_db_url):
    engine = make_engine(test_db_url)
    second = make_engine(test_db_url)  # another engine, as another process would have
    entered = threading.Event()
    order: list[str] = []

    def other():
        with store_lock(second, "demo"):
            order.append("second")
        entered.set()

    with store_lock(engine, "demo"):
        order.append("first")
        worker = threading.Thread(target=other)
        worker.start()
        worker.join(timeout=0.5)
        assert worker.is_alive() and not entered.is_set()  # blocked while the first holds the lock
        order.append("first leaves")
    worker.join(timeout=60)
    assert order == ["first", "first leaves", "second"]
    with store_lock(engine, "other"), store_lock(second, "unrelated"):  # other names do not wait
        pass
    engine.dispose()
    second.dispose()


@pytest.mark.pg
def test_two_processes_opening_a_fresh_store_load_the_demo_once(test_db_url):
    code = ("import sys; from core.embedding import SentenceTransformerEmbedder; from core.workspace import Workspace; "
            "from storage.db import make_engine; "
            "info = Workspace(make_engine(sys.argv[1]), SentenceTransformerEmbedder()).ensure_demo(); print(len(info.versions))")
    procs = [subprocess.Popen([sys.executable, "-c", code, test_db_url], cwd=REPO, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True) for _ in range(2)]
    outs = [p.communicate(timeout=300) for p in procs]
    assert [p.returncode for p in procs] == [0, 0], [err[-2000:] for _, err in outs]
    assert [out.strip() for out, _ in outs] == ["5", "5"]
    from storage.catalogs import list_catalogs, list_query_sets

    engine = make_engine(test_db_url)
    demo = [c for c in list_catalogs(engine) if c.name == "demo"]
    assert len(demo) == 1 and len(demo[0].versions) == 5
    assert sorted(s.name for s in list_query_sets(engine, "demo")) == ["demo", "timeline"]
    engine.dispose()
