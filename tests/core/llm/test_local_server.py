import sys
import time

import pytest

import core.llm.local_server as local
from core.llm.local_server import LocalModelServer, LocalServerError


def test_missing_file_is_a_clear_error(tmp_path):
    with pytest.raises(LocalServerError, match="GGUF model file not found: .*none.gguf"):
        LocalModelServer(tmp_path / "none.gguf").start()


def test_missing_package_names_the_install(tmp_path, monkeypatch):
    model = tmp_path / "m.gguf"
    model.write_bytes(b"x")
    monkeypatch.setitem(sys.modules, "xllamacpp", None)  # the import system now reports it absent
    assert not local.xllamacpp_available()
    with pytest.raises(LocalServerError, match="pip install xllamacpp"):
        LocalModelServer(model).start()


def test_errors_are_value_errors_for_the_settings_page():
    assert issubclass(LocalServerError, ValueError)


def test_constructor_validation(tmp_path):
    for kwargs, field in [({"n_ctx": 0}, "n_ctx"), ({"threads": -1}, "threads"), ({"port": 70000}, "port"),
                          ({"start_timeout": 0}, "start_timeout")]:
        with pytest.raises(ValueError, match=field):
            LocalModelServer(tmp_path / "m.gguf", **kwargs)


@pytest.mark.skipif(not local.xllamacpp_available(), reason="xllamacpp (optional extra 'local') not installed")
def test_bad_model_fails_fast_without_hanging(tmp_path):
    model = tmp_path / "bad.gguf"
    model.write_bytes(b"not a gguf file")
    server = LocalModelServer(model, start_timeout=60)
    start = time.monotonic()
    with pytest.raises(LocalServerError, match="exited while loading bad.gguf"):
        server.start()
    assert time.monotonic() - start < 30 and not server.running
    server.stop()  # idempotent
