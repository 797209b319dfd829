import pytest

import core.llm.local_server as local
from core.llm.local_server import LocalModelServer


def test_missing_file_is_a_clear_error(tmp_path):
    with pytest.raises(ValueError, match="GGUF model file not found"):
        LocalModelServer(tmp_path / "none.gguf").start()


def test_missing_package_names_the_install(tmp_path, monkeypatch):
    model = tmp_path / "m.gguf"
    model.write_bytes(b"x")
    monkeypatch.setattr(local, "xllamacpp_available", lambda: False)
    with pytest.raises(ValueError, match="pip install xllamacpp"):
        LocalModelServer(model).start()


@pytest.mark.skipif(not local.xllamacpp_available(), reason="xllamacpp (optional extra 'local') not installed")
def test_bad_model_fails_fast_without_hanging(tmp_path):
    import time

    model = tmp_path / "bad.gguf"
    model.write_bytes(b"not a gguf file")
    server = LocalModelServer(model, start_timeout=60)
    start = time.monotonic()
    with pytest.raises(ValueError, match="exited while loading bad.gguf"):
        server.start()
    assert time.monotonic() - start < 30 and not server.running
