"""Re-Invoke's synthetic queries, stored per (catalog version, generator, m, temperature).

Kept as a run of kind ``reinvoke_index`` with one item per tool, so an index build that
is interrupted resumes with the tools it had not reached yet. The run row is opened on first use:
every eval context gets a store, but only Re-Invoke ever reads or writes it.
"""

from __future__ import annotations

from collections.abc import Mapping

from sqlalchemy.engine import Engine

from storage import runs


class SqlQueryStore:
    def __init__(self, engine: Engine, *, version_id: int, generator: str, m: int, temperature: float) -> None:
        self.engine = engine
        self.version_id = version_id
        self.config = {"version_id": version_id, "generator": generator, "m": m, "temperature": temperature}
        self._run: runs.RunInfo | None = None

    @property
    def run(self) -> runs.RunInfo:
        if self._run is None:
            self._run = runs.open_run(self.engine, "reinvoke_index", self.config, version_id=self.version_id,
                                      strategy="reinvoke")
        return self._run

    def load(self) -> Mapping[str, list[str]]:
        return {key: item["queries"] for key, item in runs.load_items(self.engine, self.run.id).items()}

    def save(self, key: str, queries: list[str]) -> None:
        runs.add_item(self.engine, self.run.id, key, {"queries": list(queries)})
