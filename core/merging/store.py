"""The merge pipeline's store (``core.merging.pipeline.MergeStore``) on one stored run: each pair verdict,
cluster audit and merged description is a run item keyed by a digest of the tools it concerns, written as
soon as it is known, so an interrupted merge resumes without asking the judge again."""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from typing import Any

from sqlalchemy.engine import Engine

from core.merging.pipeline import ClusterAudit, MergedDoc, PairVerdict
from storage import runs


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:40]


class SqlMergeStore:
    """The pipeline's store (``core.merging.pipeline.MergeStore``) on one run's items."""

    def __init__(self, db: Engine, run_id: int) -> None:
        self.db = db
        self.run_id = run_id

    def _items(self, prefix: str) -> list[dict[str, Any]]:
        return [v for k, v in runs.load_items(self.db, self.run_id).items() if k.startswith(prefix)]

    def load_pairs(self) -> Mapping[tuple[str, str], PairVerdict]:
        return {(d["a"], d["b"]): PairVerdict(**d) for d in self._items("pair:")}

    def save_pair(self, verdict: PairVerdict) -> None:
        runs.put_item(self.db, self.run_id, f"pair:{_digest(verdict.a + chr(9) + verdict.b)}", verdict.__dict__)

    def load_audits(self) -> Mapping[str, ClusterAudit]:
        out = {}
        for d in self._items("audit:"):
            groups = tuple(tuple(g) for g in d["groups"])
            out[d["members_key"]] = ClusterAudit(d["ok"], groups, d["reason"], d.get("call_id"), d.get("error"))
        return out

    def save_audit(self, members_key: str, audit: ClusterAudit) -> None:
        runs.put_item(self.db, self.run_id, f"audit:{_digest(members_key)}",
                      {"members_key": members_key, **audit.__dict__})

    def load_docs(self) -> Mapping[str, MergedDoc]:
        return {d["group_key"]: MergedDoc(d["description"], d.get("call_id"), d.get("error"))
                for d in self._items("doc:")}

    def save_doc(self, group_key: str, doc: MergedDoc) -> None:
        runs.put_item(self.db, self.run_id, f"doc:{_digest(group_key)}", {"group_key": group_key, **doc.__dict__})
