"""The sandbox child's kernel layers on their own, with no audit hook in front of them.

Each check runs in a fresh interpreter that loads core/execution/sandbox_child.py by path, installs one
layer with :func:`harden` and then tries, with ctypes and every Python module at hand (as a tool that got
native code would), what that layer must stop. Nothing here is mocked: the filters are the kernel's.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from core.execution import sandbox_child
from core.execution.sandbox import CHILD_SCRIPT

MACHINE = os.uname().machine
needs_seccomp = pytest.mark.skipif(MACHINE not in sandbox_child.AUDIT_ARCH,
                                   reason=f"no seccomp program for architecture {MACHINE!r}")

PRELUDE = textwrap.dedent(
    """
    import ctypes, errno, importlib.machinery, importlib.util, json, os, resource, socket, sys, threading
    spec = importlib.util.spec_from_file_location("sandbox_child", {child!r})
    child = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(child)
    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    marker = {marker!r}
    work = {work!r}
    results = {{}}

    def attempt(name, fn):
        try:
            results[name] = ["ok", repr(fn())]
        except OSError as exc:
            results[name] = ["errno", errno.errorcode.get(exc.errno, exc.errno)]

    def native(name, value):  # a libc call: -1 and errno on failure
        results[name] = ["ok", value] if value != -1 else ["errno", errno.errorcode[ctypes.get_errno()]]
    """
)


def run_probe(tmp_path: Path, body: str) -> dict:
    work = tmp_path / "work"
    work.mkdir(exist_ok=True)
    marker = tmp_path / "marker"
    code = PRELUDE.format(child=CHILD_SCRIPT, marker=str(marker), work=str(work)) + textwrap.dedent(body) + \
        "\nprint(json.dumps(results))\n"
    done = subprocess.run([sys.executable, "-I", "-B", "-c", code], cwd=work, capture_output=True, text=True,
                          timeout=60, env={"PATH": "/usr/bin:/bin", "HOME": str(work)})
    assert done.returncode == 0, done.stderr[-3000:]
    results = json.loads(done.stdout.strip().splitlines()[-1])
    assert not marker.exists(), f"a process ran: {results}"
    return results


@needs_seccomp
def test_seccomp_filter_stops_processes_sockets_and_escapes_without_the_hook(tmp_path):
    results = run_probe(tmp_path, """
        done = child.harden(new_netns=False, readable=(), writable_dirs=(work,), landlock=False)
        results["done"] = done
        touch = ["/bin/sh", "-c", "touch " + marker]

        def fork():
            pid = os.fork()
            if pid == 0:
                open(marker, "w").close()
                os._exit(0)
            os.waitpid(pid, 0)

        def fork_exec():  # _posixsubprocess loaded past any import hook, as _imp.create_dynamic does
            import _imp
            module = _imp.create_dynamic(importlib.machinery.PathFinder.find_spec("_posixsubprocess"))
            r, w = os.pipe()
            return module.fork_exec([b"/bin/sh", b"-c", b"touch " + marker.encode()], [b"/bin/sh"], True, (w,),
                                    None, None, -1, -1, -1, -1, -1, -1, r, w, True, False, -1, None, None, None,
                                    -1, None, True)

        def unix_socket():
            socket.socket(socket.AF_UNIX, socket.SOCK_STREAM).close()

        def thread():
            box = []
            worker = threading.Thread(target=lambda: box.append(sum(range(10))))
            worker.start()
            worker.join()
            return box

        def pair():
            a, b = socket.socketpair()
            a.sendall(b"x")
            value = b.recv(1)
            a.close()
            b.close()
            return value

        def change_limit():  # even lowering one: setrlimit and prlimit64 with a new limit are refused
            soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
            try:
                resource.setrlimit(resource.RLIMIT_NOFILE, (soft - 1, hard))
            except ValueError as exc:  # how Python reports EPERM from setrlimit
                raise PermissionError(errno.EPERM, str(exc)) from None

        attempt("fork", fork)
        attempt("execv", lambda: os.execv("/bin/sh", touch))
        attempt("posix_spawn", lambda: os.posix_spawn("/bin/sh", touch, {}))
        attempt("fork_exec", fork_exec)
        import subprocess
        attempt("subprocess", lambda: subprocess.run(touch))
        native("libc_system", libc.system(("touch " + marker).encode()))
        attempt("inet_socket", lambda: socket.create_connection(("127.0.0.1", 9), timeout=1))
        attempt("unix_socket", unix_socket)
        attempt("kill_init", lambda: os.kill(1, 0))
        attempt("kill_self", lambda: os.kill(os.getpid(), 0))
        attempt("change_limit", change_limit)
        attempt("read_limit", lambda: resource.getrlimit(resource.RLIMIT_NOFILE)[0] > 0)
        native("unshare", libc.unshare(0x40000000))
        native("ptrace", libc.ptrace(16, os.getppid(), None, None))
        native("clone3", libc.syscall(435, None, ctypes.c_size_t(0)))
        attempt("mknod", lambda: os.mknod(os.path.join(work, "mem"), 0o20600, os.makedev(1, 1)))
        attempt("fifo", lambda: os.mkfifo(os.path.join(work, "fifo")))
        attempt("thread", thread)
        attempt("socketpair", pair)
    """)
    assert results.pop("done")["seccomp"] is True
    eperm = ["errno", "EPERM"]
    for name in ("fork", "execv", "posix_spawn", "fork_exec", "subprocess", "inet_socket", "unix_socket",
                 "kill_init", "change_limit", "unshare", "ptrace", "mknod"):
        assert results[name] == eperm, (name, results[name])
    assert results["libc_system"][0] == "ok" and results["libc_system"][1] != 0  # system() could not start sh
    assert results["clone3"] == ["errno", "ENOSYS"]  # so glibc falls back to clone, whose flags are checked
    assert results["kill_self"][0] == "ok" and results["read_limit"] == ["ok", "True"]
    assert results["thread"] == ["ok", "[45]"] and results["socketpair"] == ["ok", "b'x'"]
    assert results["fifo"][0] == "ok"  # ordinary special files are fine, device nodes are not


def test_landlock_confines_reads_and_writes_without_the_hook(tmp_path):
    secret = tmp_path / "home" / ".ssh" / "id_rsa"
    secret.parent.mkdir(parents=True)
    secret.write_text("SECRET-KEY-MATERIAL")
    results = run_probe(tmp_path, f"""
        done = child.harden(new_netns=False, readable=(sys.prefix, sys.base_prefix), writable_dirs=(work,),
                            seccomp=False)
        results["done"] = done

        def write(path):
            with open(path, "w") as handle:
                handle.write("x")

        attempt("read_secret", lambda: open({str(secret)!r}).read())
        attempt("list_home", lambda: os.listdir({str(secret.parent)!r}))
        attempt("read_shadow", lambda: open("/etc/shadow").read())
        attempt("read_init_environ", lambda: open("/proc/1/environ", "rb").read())
        attempt("write_outside", lambda: write({str(tmp_path / "outside.txt")!r}))
        attempt("write_inside", lambda: write(os.path.join(work, "inside.txt")))
        attempt("read_stdlib", lambda: len(open(os.__file__).read()) > 0)
        attempt("import_json_decoder", lambda: __import__("json.decoder").__name__)
    """)
    done = results.pop("done")
    if not done["landlock"]:
        pytest.skip(f"the kernel offers no Landlock: {done['notes']}")
    for name in ("read_secret", "list_home", "read_shadow", "read_init_environ", "write_outside"):
        assert results[name] == ["errno", "EACCES"], (name, results[name])
    assert "SECRET-KEY-MATERIAL" not in json.dumps(results)
    assert not (tmp_path / "outside.txt").exists()
    assert results["write_inside"][0] == "ok" and (tmp_path / "work" / "inside.txt").exists()
    assert results["read_stdlib"] == ["ok", "True"]


def test_unknown_architecture_skips_seccomp_and_says_why(tmp_path):
    results = run_probe(tmp_path, """
        results["done"] = child.harden(new_netns=False, readable=(), writable_dirs=(work,), landlock=False,
                                       machine="mips")
        attempt("fork", lambda: os.waitpid(os.fork() or os._exit(0), 0) and None)
    """)
    assert results["done"]["seccomp"] is False
    assert any("unsupported architecture 'mips'" in note for note in results["done"]["notes"])


def test_seccomp_programs_are_well_formed():
    for machine in sandbox_child.AUDIT_ARCH:
        program = sandbox_child.seccomp_program(machine, 1234)
        assert len(program) % 8 == 0 and 40 < len(program) // 8 < 200
    with pytest.raises(KeyError):
        sandbox_child.seccomp_program("sparc", 1)
