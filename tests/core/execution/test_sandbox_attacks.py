"""Hostile tool code against the Python sandbox, in both isolation modes, with real processes.

Every attack is a tool body given as inline source (as a catalog would carry it). Each must come back as a
failed result with a classified error and a clear message, and leave no trace: no marker file, nothing
written outside, no secret in the result, no process left running, no working directory left behind.
The "bwrap" cases are skipped, saying why, where bubblewrap is missing or does not work.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

import pytest

from core.execution.base import ExecutionResult
from core.execution.sandbox import PythonFunction, SandboxExecutor, bubblewrap_status, isolation_report
from core.models import Tool

SECRET = "TOOLATLAS-ATTACK-SECRET-7f3a9c"


@pytest.fixture(params=["process", "bwrap"])
def mode(request) -> str:
    if request.param == "bwrap":
        path, reason = bubblewrap_status()
        if path is None:
            pytest.skip(f"bubblewrap isolation cannot be tested here: {reason}")
    return request.param


class Jail:
    """Runs tool sources in one isolation mode, with every call's working directory under ``calls``."""

    def __init__(self, mode: str, root: Path) -> None:
        self.mode = mode
        self.calls = root / "calls"
        self.calls.mkdir()
        self.marker = root / "marker"

    def run(self, source: str, arguments: dict | None = None, *, timeout: float = 5.0) -> ExecutionResult:
        source = textwrap.dedent(source)
        executor = SandboxExecutor({"attack": PythonFunction.from_source(source, "attack")}, timeout=timeout,
                                   memory_mb=128, max_file_mb=4, isolation=self.mode)
        with executor:
            result = executor.call(Tool(key="attack", name="attack"), arguments or {}, timeout=timeout)
        self.assert_no_trace()
        return result

    def assert_no_trace(self) -> None:
        assert not self.marker.exists(), "the attack ran a process or wrote its marker"
        assert list(self.calls.iterdir()) == [], "a working directory was left behind"
        deadline = time.monotonic() + 3
        while (left := _processes_with_home_under(self.calls)) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not left, f"sandbox processes still running: {left}"

    def expect_isolation(self, result: ExecutionResult) -> None:
        parts = result.isolation.split("+")
        assert parts[0] == ("bubblewrap" if self.mode == "bwrap" else "process"), result.isolation
        assert "audit" in parts, result.isolation
        if os.uname().machine in ("x86_64", "aarch64"):
            assert "seccomp" in parts, result.isolation


def _processes_with_home_under(root: Path) -> list[int]:
    """Processes whose environment has HOME inside ``root``: every sandbox child (HOME is its working
    directory) and anything it could have started."""
    needle = f"HOME={root}/".encode()
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit() and int(entry) != os.getpid():
            try:
                environ = Path(f"/proc/{entry}/environ").read_bytes()
            except OSError:
                continue
            if needle in environ:
                found.append(int(entry))
    return found


@pytest.fixture
def jail(mode, tmp_path, monkeypatch) -> Jail:
    jail = Jail(mode, tmp_path)
    monkeypatch.setattr(tempfile, "tempdir", str(jail.calls))  # where the sandbox makes working directories
    return jail


def refused(result: ExecutionResult, *words: str) -> None:
    assert not result.ok and result.error_kind == "refused", result
    assert result.error.startswith("the sandbox refused "), result.error
    for word in words:
        assert word in result.error, (word, result.error)


# -- process creation ---------------------------------------------------------------------------------

SPAWNS = {
    "subprocess.run": """
        def attack(marker):
            import subprocess
            subprocess.run(["/bin/sh", "-c", "touch " + marker])
    """,
    "os.system": """
        import os
        def attack(marker):
            os.system("touch " + marker)
    """,
    "os.posix_spawn": """
        import os
        def attack(marker):
            os.posix_spawn("/bin/sh", ["sh", "-c", "touch " + marker], {})
    """,
    "_posixsubprocess.fork_exec": """
        import os
        def attack(marker):
            import _posixsubprocess
            r, w = os.pipe()
            _posixsubprocess.fork_exec([b"/bin/sh", b"-c", ("touch " + marker).encode()], [b"/bin/sh"], True,
                                       (w,), None, None, -1, -1, -1, -1, -1, -1, r, w, True, False, -1, None,
                                       None, None, -1, None, True)
    """,
    "ctypes.CDLL(None).system": """
        def attack(marker):
            import ctypes
            ctypes.CDLL(None).system(("touch " + marker).encode())
    """,
    "os.fork": """
        import os
        def attack(marker):
            if os.fork() == 0:
                open(marker, "w").close()
                os._exit(0)
    """,
    "_imp.create_dynamic(_posixsubprocess)": """
        import os
        def attack(marker):
            import _imp, importlib.machinery
            spec = importlib.machinery.PathFinder.find_spec("_posixsubprocess")  # past sys.modules' stub
            module = _imp.create_dynamic(spec)  # loads the extension without any import audit event
            r, w = os.pipe()
            module.fork_exec([b"/bin/sh", b"-c", ("touch " + marker).encode()], [b"/bin/sh"], True, (w,),
                             None, None, -1, -1, -1, -1, -1, -1, r, w, True, False, -1, None, None, None, -1,
                             None, True)
    """,
    "_imp.create_dynamic under a disguised name": """
        import os
        def attack(marker):
            import _imp, importlib.machinery, importlib.util
            origin = importlib.machinery.PathFinder.find_spec("_posixsubprocess").origin
            # the init function is found from the last name component: PyInit__posixsubprocess
            spec = importlib.util.spec_from_file_location("innocent._posixsubprocess", origin)
            module = _imp.create_dynamic(spec)
            r, w = os.pipe()
            module.fork_exec([b"/bin/sh", b"-c", ("touch " + marker).encode()], [b"/bin/sh"], True, (w,),
                             None, None, -1, -1, -1, -1, -1, -1, r, w, True, False, -1, None, None, None, -1,
                             None, True)
    """,
    "_imp.create_dynamic(_ctypes)": """
        def attack(marker):
            import _imp, importlib.machinery
            module = _imp.create_dynamic(importlib.machinery.PathFinder.find_spec("_ctypes"))
            module.dlopen(None)
    """,
    "fork bomb": """
        import os
        def attack(marker):
            while True:
                os.fork()
    """,
}


@pytest.mark.parametrize("attack", list(SPAWNS))
def test_starting_a_process_is_refused(jail, attack):
    result = jail.run(SPAWNS[attack], {"marker": str(jail.marker)})
    refused(result)
    assert any(w in result.error for w in ("starting a process", "importing", "system-call filter",
                                           "native code")), result.error
    jail.expect_isolation(result)


def test_the_process_attacks_are_real_outside_the_sandbox(tmp_path):
    """Control: the same bodies, run by a plain interpreter, do start /bin/sh."""
    for index, name in enumerate(("subprocess.run", "os.posix_spawn", "_imp.create_dynamic(_posixsubprocess)")):
        marker = tmp_path / f"marker{index}"
        code = textwrap.dedent(SPAWNS[name]) + f"\nattack({str(marker)!r})\n"
        subprocess.run([sys.executable, "-I", "-c", code], check=True, timeout=30)
        deadline = time.monotonic() + 5
        while not marker.exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        assert marker.exists(), name


# -- network ----------------------------------------------------------------------------------------

def test_connecting_to_a_local_listener_is_refused(jail):
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(1)
        listener.settimeout(0.5)
        result = jail.run("""
            import socket
            def attack(port):
                with socket.create_connection(("127.0.0.1", port), timeout=2) as conn:
                    conn.sendall(b"hello")
                return "connected"
        """, {"port": listener.getsockname()[1]})
        refused(result, "network")
        with pytest.raises(TimeoutError):
            listener.accept()  # nothing connected


# -- files ------------------------------------------------------------------------------------------

def test_writing_outside_the_working_directory_is_refused(jail, tmp_path):
    target = tmp_path / "outside" / "pwned.txt"
    target.parent.mkdir()
    result = jail.run("""
        def attack(path):
            with open(path, "w") as handle:
                handle.write("pwned")
    """, {"path": str(target)})
    refused(result, "writing", str(target))
    assert not target.exists()


def test_reading_another_process_environment_is_refused(jail):
    holder = subprocess.Popen(["sleep", "30"], env={"PATH": "/usr/bin:/bin", "ATTACK_SECRET": SECRET})
    try:
        result = jail.run("""
            def attack(pid):
                out = {}
                for path in (f"/proc/{pid}/environ", "/proc/1/environ"):
                    with open(path, "rb") as handle:
                        out[path] = handle.read().decode(errors="replace")
                return out
        """, {"pid": holder.pid})
    finally:
        holder.kill()
        holder.wait()
    assert not result.ok and result.error_kind == "refused", result
    assert "/proc/" in result.error
    assert SECRET not in str(result.to_json())


def test_reading_a_private_key_under_home_is_refused(jail, tmp_path):
    key = tmp_path / "home" / ".ssh" / "id_ed25519"
    key.parent.mkdir(parents=True)
    key.write_text(f"-----BEGIN OPENSSH PRIVATE KEY-----\n{SECRET}\n")
    for source in ("""
        def attack(path):
            with open(path) as handle:
                return handle.read()
    """, """
        import os
        def attack(path):
            return os.listdir(os.path.dirname(path))
    """):
        result = jail.run(source, {"path": str(key)})
        refused(result, "outside the files a sandboxed tool may read")
        assert SECRET not in str(result.to_json()) and "id_ed25519" not in str(result.data)


def test_reading_system_secrets_is_refused(jail):
    result = jail.run("""
        def attack():
            with open("/etc/shadow") as handle:
                return handle.read()
    """)
    assert not result.ok and result.error_kind == "refused", result


# -- resources --------------------------------------------------------------------------------------

def test_a_4_gb_allocation_is_a_limit(jail):
    result = jail.run("""
        def attack():
            block = bytearray(4 * 1024 ** 3)
            return len(block)
    """)
    assert result.error_kind == "limit" and "memory" in result.error.lower(), result
    jail.expect_isolation(result)


def test_an_endless_loop_is_a_timeout(jail):
    started = time.monotonic()
    result = jail.run("""
        def attack():
            while True:
                pass
    """, timeout=1.0)
    assert result.error_kind == "timeout", result
    assert time.monotonic() - started < 4.0
    jail.expect_isolation(result)  # the child said what held before the tool ran


def test_100_mb_of_printed_output_is_a_limit(jail):
    result = jail.run("""
        def attack():
            line = "y" * 1023
            for _ in range(100 * 1024):
                print(line)
            return "done"
    """)
    assert result.error_kind == "limit", result


# -- tricks against the audit hook itself ---------------------------------------------------------------

TRICKS = {
    "rebinding os.getcwd and os.path.realpath": """
        import os, os.path
        def attack(target):
            real = os.getcwd()
            os.chdir(os.path.dirname(target))
            os.getcwd = lambda: real
            os.path.realpath = lambda path, **kw: os.path.join(real, os.path.basename(path))
            with open(os.path.basename(target), "w") as handle:
                handle.write("pwned")
    """,
    "a str subclass that lies about itself": """
        class Sneaky(str):
            def startswith(self, *args):
                return True
            def split(self, *args, **kwargs):
                return ["", "tmp"]
            def __str__(self):
                return "inside.txt"
        def attack(target):
            with open(Sneaky(target), "w") as handle:
                handle.write("pwned")
    """,
    "a path-like object that answers twice": """
        import os
        class Flip:
            calls = 0
            def __init__(self, target):
                self.target = target
            def __fspath__(self):  # os.open's audit event carries this object, not the path it used
                Flip.calls += 1
                return self.target if Flip.calls == 1 else "inside.txt"
        def attack(target):
            os.write(os.open(Flip(target), os.O_WRONLY | os.O_CREAT), b"pwned")
    """,
    "rebinding builtins the hook might use": """
        import builtins
        def attack(target):
            builtins.isinstance = lambda *args: False
            builtins.any = lambda *args: False
            builtins.len = lambda *args: 0
            with open(target, "w") as handle:
                handle.write("pwned")
    """,
    "emptying the child's list of forbidden modules": """
        import sys
        def attack(target):
            main = sys.modules["__main__"]
            main.FORBIDDEN_MODULES = frozenset()
            import ctypes
            ctypes.CDLL(None).system(b"true")
    """,
    "a symbolic link out of the working directory": """
        import os
        def attack(target):
            os.symlink(os.path.dirname(target), "out")
            with open(os.path.join("out", os.path.basename(target)), "w") as handle:
                handle.write("pwned")
    """,
    "os.open with a dir_fd and '..'": """
        import os
        def attack(target):
            os.makedirs("a")
            top = os.open(".", os.O_RDONLY)
            os.chdir("a")
            fd = os.open("../pwned.txt", os.O_WRONLY | os.O_CREAT, dir_fd=top)  # ../ of the working dir
            os.write(fd, b"pwned")
    """,
    "a sub-interpreter without the hook": """
        def attack(target):
            import _xxsubinterpreters
            _xxsubinterpreters.create()
    """,
    "signalling the parent": """
        import os, signal
        def attack(target):
            os.kill(os.getppid(), signal.SIGTERM)
    """,
}


@pytest.mark.parametrize("trick", list(TRICKS))
def test_tricks_against_the_hook_are_refused(jail, tmp_path, trick):
    target = tmp_path / "outside" / "pwned.txt"
    target.parent.mkdir()
    result = jail.run(TRICKS[trick], {"target": str(target)})
    if jail.mode == "bwrap" and result.error_kind == "server":
        # the outside directory does not even exist in bubblewrap's namespace
        assert "No such file or directory" in result.error, result
    else:
        refused(result)
    assert not target.exists()
    assert not (jail.calls / "pwned.txt").exists()


# -- what still works ----------------------------------------------------------------------------------

def test_a_normal_tool_works_and_says_how_it_was_isolated(jail):
    result = jail.run("""
        import datetime, json, math, re, zoneinfo
        import asyncio, collections, dataclasses, decimal, hashlib, random, statistics, typing
        def attack(text):
            when = datetime.datetime(2024, 6, 1, 12, tzinfo=zoneinfo.ZoneInfo("Europe/Paris"))
            with open("notes.txt", "w") as handle:
                handle.write(text)
            async def later():
                await asyncio.sleep(0)
                return math.sqrt(16)
            return {"json": json.loads('{"a": [1, 2]}'), "root": asyncio.run(later()),
                    "words": re.findall(r"\\w+", text), "utc": when.astimezone(datetime.timezone.utc).hour,
                    "read": open("notes.txt").read(), "mean": statistics.mean([1, 2, 3])}
    """, {"text": "hello sandbox"})
    assert result.ok, result
    assert result.data == {"json": {"a": [1, 2]}, "root": 4.0, "words": ["hello", "sandbox"], "utc": 10,
                           "read": "hello sandbox", "mean": 2}
    jail.expect_isolation(result)
    assert result.to_json()["isolation"] == result.isolation


def test_isolation_modes_and_the_report():
    with pytest.raises(ValueError, match="isolation"):
        SandboxExecutor(isolation="chroot")
    report = isolation_report()
    assert report.level in ("bubblewrap", "process") and report.summary
    assert report.isolation.startswith(report.level)
    if not report.network_isolated:
        assert report.summary.startswith("WARNING")
    bwrap, reason = bubblewrap_status()
    assert (report.level == "bubblewrap") == (bwrap is not None), reason


def test_the_report_without_bubblewrap(monkeypatch):
    import core.execution.sandbox as sandbox

    monkeypatch.setattr(sandbox, "_BWRAP_STATE", (None, "bwrap is not installed (test)"))
    monkeypatch.setattr(sandbox, "_REPORT", None)
    report = isolation_report()
    assert report.level == "process" and report.isolation.startswith("process+")
    assert report.network_isolated == ("netns" in report.isolation.split("+"))
    if report.network_isolated:
        assert "bwrap is not installed (test)" in report.summary
    else:
        assert report.summary.startswith("WARNING: neither bubblewrap nor a network namespace")


def test_required_bubblewrap_that_does_not_work_is_unavailable(monkeypatch):
    import core.execution.sandbox as sandbox

    monkeypatch.setattr(sandbox, "_BWRAP_STATE", (None, "bwrap is not installed (test)"))
    executor = SandboxExecutor({"f": PythonFunction.from_source("def f():\n    return 1\n", "f")},
                               isolation="bwrap")
    result = executor.call(Tool(key="f", name="f"), {})
    assert result.error_kind == "unavailable" and "bubblewrap" in result.error, result
    auto = SandboxExecutor({"f": PythonFunction.from_source("def f():\n    return 1\n", "f")})
    fallback = auto.call(Tool(key="f", name="f"), {})
    assert fallback.ok and fallback.isolation.startswith("process+"), fallback


def test_a_sleeping_tool_is_killed_with_everything_around_it(jail):
    # A sleeping tool uses no CPU: only the parent's kill stops it, and with bubblewrap that kill must take
    # the whole namespace down (Jail.run checks that no process is left).
    result = jail.run("""
        import time
        def attack():
            time.sleep(60)
    """, timeout=1.0)
    assert result.error_kind == "timeout", result
