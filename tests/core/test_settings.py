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


def test_tool_text_comes_from_the_environment(monkeypatch):
    monkeypatch.delenv("TOOLATLAS_TOOL_TEXT", raising=False)
    assert Settings.from_env().text_with_parameters is True
    monkeypatch.setenv("TOOLATLAS_TOOL_TEXT", "name-description")
    assert Settings.from_env().text_with_parameters is False
    monkeypatch.setenv("TOOLATLAS_TOOL_TEXT", "description")
    with pytest.raises(ValueError, match="TOOLATLAS_TOOL_TEXT must be one of name-description-parameters, "
                                         "name-description, not 'description'"):
        Settings.from_env()
    # the Settings page's override is a plain False, which with_overrides must not drop as "unset"
    assert Settings().with_overrides(text_with_parameters=False).text_with_parameters is False
