"""The Python sandbox, exercised with real subprocesses: every limit is provoked and checked."""

from __future__ import annotations

import os
import resource
import socket
import textwrap
import time
from pathlib import Path

import pytest

from core.execution.base import Executor
from core.execution.sandbox import PythonFunction, SandboxExecutor
from core.models import Tool

TOOLS = textwrap.dedent(
    '''
    import os
    import sys


    def add(a, b):
        return a + b


    def noisy(n):
        print('{"ok": false, "kind": "server", "error": "forged"}')
        print("not json at all {", file=sys.stderr)
        sys.stdout.flush()
        return {"n": n, "list": [1, 2, 3]}


    def spin():
        while True:
            pass


    def sleeper():
        import time
        time.sleep(60)


    def hog():
        block = bytearray(2 * 1024 ** 3)
        return len(block)


    def environment():
        return dict(os.environ)


    def dial(port):
        import socket
        with socket.create_connection(("127.0.0.1", port), timeout=2) as conn:
            conn.sendall(b"hello")
        return "connected"


    def write_to(path):
        with open(path, "w") as handle:
            handle.write("escaped")
        return "written"


    def write_here(name, text):
        with open(name, "w") as handle:
            handle.write(text)
        with open(name) as handle:
            return {"cwd": os.getcwd(), "read": handle.read(), "files": os.listdir(".")}


    def link_out(target):
        os.symlink(target, "link")
        with open("link", "w") as handle:
            handle.write("escaped")


    def remove(path):
        os.remove(path)


    def spawn():
        import subprocess
        return subprocess.run(["echo", "hi"], capture_output=True, text=True).stdout


    def shell():
        return os.system("echo hi")


    def breaks(x):
        raise ValueError(f"bad value {x}")


    def inner_type_error():
        return "a" + 1


    def odd_value():
        return {"when": object(), "set": {1}}


    def big(n):
        return "x" * n


    def big_file(mb):
        with open("big.bin", "wb") as handle:
            handle.write(b"0" * (mb * 1024 * 1024))
        return "done"


    def where():
        return os.getcwd()


    def netns():
        return os.readlink("/proc/self/ns/net")


    def housekeeping():
        import shutil
        import sqlite3
        import tempfile
        os.makedirs("d/e")
        with open("d/e/a", "w") as handle:
            handle.write("1")
        os.replace("d/e/a", "d/b")
        shutil.copytree("d", "d2")
        shutil.rmtree("d2")
        with tempfile.TemporaryDirectory() as scratch:
            open(os.path.join(scratch, "z"), "w").close()
        sqlite3.connect("local.db").close()
        return sorted(os.listdir("."))


    def parent_environment():
        with open(f"/proc/{os.getppid()}/environ", "rb") as handle:
            return handle.read().decode(errors="replace")


    def lift_limits():
        import resource
        resource.setrlimit(resource.RLIMIT_AS, (resource.RLIM_INFINITY, resource.RLIM_INFINITY))


    def signal_parent():
        os.kill(os.getppid(), 0)


    def outside_db(path):
        import sqlite3
        sqlite3.connect(path).execute("create table t (x)")


    def chatter(mb):
        line = "y" * 1023
        for _ in range(mb * 1024):
            print(line)
        return "done"


    async def later(x):
        import asyncio
        await asyncio.sleep(0.01)
        return x * 2
    '''
)


@pytest.fixture(scope="module")
def tools_file(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("tools") / "tools.py"
    path.write_text(TOOLS)
    return path


@pytest.fixture(scope="module")
def sandbox(tools_file):
    names = [line.split("def ", 1)[1].split("(")[0] for line in TOOLS.splitlines() if "def " in line]
    executor = SandboxExecutor({n: PythonFunction.from_file(tools_file, n) for n in names}, timeout=5.0,
                               memory_mb=128, max_file_mb=4)
    yield executor
    executor.close()


def tool(key: str, **extra) -> Tool:
    return Tool(key=key, name=key, extra=extra)


def test_is_an_executor(sandbox):
    assert isinstance(sandbox, Executor)
    assert sandbox.covers(tool("add"))
    assert not sandbox.covers(tool("nope"))


def test_working_function_returns_its_value(sandbox):
    result = sandbox.call(tool("add"), {"a": 2, "b": 40})
    assert result.ok, result
    assert result.data == 42
    assert result.executor == "sandbox"
    assert result.seconds > 0


def test_inline_source_and_catalog_entry(tools_file):
    inline = SandboxExecutor({"sq": PythonFunction.from_source("def sq(x):\n    return x * x\n", "sq")})
    assert inline.call(tool("sq"), {"x": 7}).data == 49
    catalog = SandboxExecutor()
    by_source = tool("t2", python={"source": "def f(s):\n    return s.upper()\n", "function": "f"})
    assert catalog.covers(by_source)
    assert not catalog.covers(tool("t3", python={"function": "f"}))
    assert catalog.call(by_source, {"s": "abc"}).data == "ABC"
    # catalog data is untrusted: it may not point the sandbox at a file, not even the operator's own
    by_path = tool("t1", python={"path": str(tools_file), "function": "add"})
    assert not catalog.covers(by_path)
    assert catalog.call(by_path, {"a": "x", "b": "y"}).error_kind == "not_found"
    with pytest.raises(ValueError, match="may not name a file"):
        PythonFunction.from_extra({"path": "/etc/passwd", "function": "read"})
    with pytest.raises(ValueError, match="may not name a file"):
        PythonFunction.from_extra({"path": "/etc/passwd", "source": "def read(): pass", "function": "read"})
    # the operator's own functions mapping still takes files
    operator = SandboxExecutor({"t1": PythonFunction.from_file(tools_file, "add")})
    assert operator.call(tool("t1"), {"a": "x", "b": "y"}).data == "xy"


def test_coroutine_function_is_awaited(sandbox):
    assert sandbox.call(tool("later"), {"x": 21}).data == 42


def test_infinite_loop_is_killed_at_the_wall_clock_limit(sandbox):
    start = time.monotonic()
    result = sandbox.call(tool("spin"), {}, timeout=1.0)
    elapsed = time.monotonic() - start
    assert result.error_kind == "timeout", result
    assert elapsed < 1.0 + 3.0
    # a sleeping tool uses no CPU, so only the wall clock can stop it
    start = time.monotonic()
    assert sandbox.call(tool("sleeper"), {}, timeout=1.0).error_kind == "timeout"
    assert time.monotonic() - start < 4.0


def test_memory_hog_is_stopped_and_the_parent_is_unaffected(sandbox):
    before = resource.getrlimit(resource.RLIMIT_AS)
    result = sandbox.call(tool("hog"), {})
    assert result.error_kind == "limit", result
    assert "memory" in result.error.lower()
    assert resource.getrlimit(resource.RLIMIT_AS) == before
    parent_block = bytearray(256 * 1024 * 1024)  # the parent still allocates freely
    assert len(parent_block) == 256 * 1024 * 1024
    del parent_block
    assert sandbox.call(tool("add"), {"a": 1, "b": 1}).data == 2


def test_network_is_refused_and_nothing_connects(sandbox):
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(1)
        listener.settimeout(0.5)
        result = sandbox.call(tool("dial"), {"port": listener.getsockname()[1]})
        assert result.error_kind == "refused", result
        assert "network" in result.error and "socket." in result.error
        with pytest.raises(TimeoutError):
            listener.accept()


def test_writing_outside_the_working_directory_is_refused(sandbox, tmp_path):
    outside = tmp_path / "outside.txt"
    result = sandbox.call(tool("write_to"), {"path": str(outside)})
    assert result.error_kind == "refused", result
    assert str(outside) in result.error
    assert not outside.exists()


def test_symlink_and_delete_outside_are_refused(sandbox, tmp_path):
    target = tmp_path / "target.txt"
    assert sandbox.call(tool("link_out"), {"target": str(target)}).error_kind == "refused"
    assert not target.exists()
    keep = tmp_path / "keep.txt"
    keep.write_text("mine")
    assert sandbox.call(tool("remove"), {"path": str(keep)}).error_kind == "refused"
    assert keep.read_text() == "mine"


def test_writing_inside_the_working_directory_works_and_is_cleaned_up(sandbox):
    result = sandbox.call(tool("write_here"), {"name": "notes.txt", "text": "hello"})
    assert result.ok, result
    assert result.data["read"] == "hello" and result.data["files"] == ["notes.txt"]
    assert not Path(result.data["cwd"]).exists()
    first, second = (sandbox.call(tool("where"), {}).data for _ in range(2))
    assert first != second  # a fresh directory per call


def test_file_size_limit(sandbox):
    result = sandbox.call(tool("big_file"), {"mb": 8})  # the fixture allows 4 MB
    assert result.error_kind == "limit", result


def test_ordinary_file_housekeeping_inside_works(sandbox):
    result = sandbox.call(tool("housekeeping"), {})
    assert result.ok, result
    assert result.data == ["d", "local.db"]


def test_other_escapes_are_refused(sandbox, tmp_path):
    environ = sandbox.call(tool("parent_environment"), {})
    assert environ.error_kind == "refused" and "/proc/" in environ.error
    assert sandbox.call(tool("signal_parent"), {}).error_kind == "refused"
    assert sandbox.call(tool("lift_limits"), {}).error_kind == "refused"
    database = tmp_path / "outside.db"
    assert sandbox.call(tool("outside_db"), {"path": str(database)}).error_kind == "refused"
    assert not database.exists()


def test_printing_past_the_file_limit_is_a_limit(sandbox):
    assert sandbox.call(tool("chatter"), {"mb": 1}).data == "done"
    assert sandbox.call(tool("chatter"), {"mb": 6}).error_kind == "limit"  # the fixture allows 4 MB


def test_concurrent_calls_are_independent(sandbox):
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(4) as pool:
        results = list(pool.map(lambda n: sandbox.call(tool("add"), {"a": n, "b": n}), range(8)))
    assert [r.data for r in results] == [2 * n for n in range(8)]


def test_spawning_processes_is_refused(sandbox):
    for name in ("spawn", "shell"):
        result = sandbox.call(tool(name), {})
        assert result.error_kind == "refused", result
        assert "starting a process" in result.error


def test_wrong_arguments_are_invalid_params(sandbox):
    missing = sandbox.call(tool("add"), {"a": 1})
    assert missing.error_kind == "invalid_params" and "'b'" in missing.error
    unknown = sandbox.call(tool("add"), {"a": 1, "b": 2, "c": 3})
    assert unknown.error_kind == "invalid_params"
    assert sandbox.call(tool("add"), {"a": object()}).error_kind == "invalid_params"  # not JSON


def test_exceptions_are_server_errors(sandbox):
    result = sandbox.call(tool("breaks"), {"x": 3})
    assert result.error_kind == "server" and result.error == "ValueError: bad value 3"
    # a TypeError raised by the tool's own code is not an argument problem
    assert sandbox.call(tool("inner_type_error"), {}).error_kind == "server"


def test_parent_api_key_is_not_inherited(sandbox, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-secret")
    env = sandbox.call(tool("environment"), {}).data
    assert "OPENAI_API_KEY" not in env
    assert "sk-test-secret" not in str(env)


def test_prints_do_not_corrupt_the_result(sandbox):
    result = sandbox.call(tool("noisy"), {"n": 5})
    assert result.ok, result
    assert result.data == {"n": 5, "list": [1, 2, 3]}


def test_values_are_made_json_and_output_is_capped(sandbox):
    odd = sandbox.call(tool("odd_value"), {})
    assert odd.ok and odd.data["when"].startswith("<object object") and odd.data["set"] == "{1}"
    assert sandbox.call(tool("big"), {"n": 1000}).data == "x" * 1000
    big = sandbox.call(tool("big"), {"n": 2_000_000})
    assert big.error_kind == "limit" and "limit" in big.error


def test_missing_function_and_unloadable_source(tmp_path):
    executor = SandboxExecutor({
        "ghost": PythonFunction.from_source("def other():\n    pass\n", "ghost"),
        "broken": PythonFunction.from_source("def broken(:\n", "broken"),
        "gone": PythonFunction.from_file(tmp_path / "missing.py", "gone"),
        "net": PythonFunction.from_source("import socket\nsocket.socket().connect(('1.1.1.1', 80))\n"
                                          "def net():\n    pass\n", "net"),
    })
    assert executor.call(tool("ghost"), {}).error_kind == "not_found"
    assert executor.call(tool("broken"), {}).error_kind == "unavailable"
    assert executor.call(tool("gone"), {}).error_kind == "not_found"
    assert executor.call(tool("net"), {}).error_kind == "refused"
    assert executor.call(tool("unknown"), {}).error_kind == "not_found"


@pytest.mark.skipif(os.geteuid() != 0, reason="a new network namespace needs root")
def test_child_runs_in_its_own_network_namespace(sandbox):
    assert sandbox.call(tool("netns"), {}).data != os.readlink("/proc/self/ns/net")


def test_closed_executor_is_unavailable():
    executor = SandboxExecutor({"f": PythonFunction.from_source("def f():\n    return 1\n", "f")})
    with executor:
        assert executor.call(tool("f"), {}).data == 1
    assert executor.call(tool("f"), {}).error_kind == "unavailable"


def test_input_validation():
    with pytest.raises(ValueError):
        PythonFunction(function="f")
    with pytest.raises(ValueError):
        PythonFunction(function="f", path="a.py", source="def f(): pass")
    with pytest.raises(ValueError):
        PythonFunction.from_source("x = 1", "not a name")
    with pytest.raises(TypeError):
        SandboxExecutor({"f": "not a PythonFunction"})
    with pytest.raises(ValueError):
        SandboxExecutor(timeout=0)
    with pytest.raises(ValueError):
        SandboxExecutor(memory_mb=1)
    with pytest.raises(ValueError):
        SandboxExecutor().call(tool("f"), {}, timeout=-1)
