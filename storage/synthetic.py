"""Re-Invoke's synthetic queries, stored per (catalog version, generator, m, temperature).

Kept as a run of kind ``reinvoke_index`` with one item per tool, so an index build that
is interrupted resumes with the tools it had not reached yet.
"""

from __future__ import annotations

from collections.abc import Mapping

from sqlalchemy.engine import Engine

from storage import runs


class SqlQueryStore:
    def __init__(self, engine: Engine, *, version_id: int, generator: str, m: int, temperature: float) -> None:
        self.engine = engine
        config = {"version_id": version_id, "generator": generator, "m": m, "temperature": temperature}
        self.run = runs.open_run(engine, "reinvoke_index", config, version_id=version_id, strategy="reinvoke")

    def load(self) -> Mapping[str, list[str]]:
        return {key: item["queries"] for key, item in runs.load_items(self.engine, self.run.id).items()}

    def save(self, key: str, queries: list[str]) -> None:
        runs.add_item(self.engine, self.run.id, key, {"queries": list(queries)})
