import pytest

from core.settings import Settings


def test_engine_budget_comes_from_the_environment(monkeypatch):
    monkeypatch.setenv("TOOLATLAS_ENGINE_BUDGET", "5000")
    assert Settings.from_env().engine_budget == 5000
    monkeypatch.delenv("TOOLATLAS_ENGINE_BUDGET")
    assert Settings.from_env().engine_budget is None
    for bad in ("0", "-3", "lots", "1.5"):
        monkeypatch.setenv("TOOLATLAS_ENGINE_BUDGET", bad)
        with pytest.raises(ValueError, match="TOOLATLAS_ENGINE_BUDGET"):
            Settings.from_env()
