"""The child side of the Python sandbox (see :mod:`core.execution.sandbox`).

:func:`_sandbox_child` runs in the sandbox process, shipped there as source text by the parent: it may
use only the standard library and must not refer to anything else in this module or package.
"""


def _sandbox_child() -> None:
    import errno
    import json
    import os
    import resource
    import socket
    import sys

    request = json.loads(sys.stdin.buffer.read().decode("utf-8"))
    result_fd = request["result_fd"]
    refusal_mark = "sandbox refused: "

    def answer(text: str) -> None:
        data = text.encode("utf-8", "surrogatepass")
        # Start from an empty file: a tool that scribbled on this descriptor does not corrupt the answer.
        os.ftruncate(result_fd, 0)
        os.lseek(result_fd, 0, os.SEEK_SET)
        view = memoryview(data)
        while view:
            view = view[os.write(result_fd, view):]

    def fail(kind: str, message: str) -> None:
        answer(json.dumps({"ok": False, "kind": kind, "error": message[:2000]}, ensure_ascii=False))

    def isolate_network() -> None:
        # An empty network namespace (only a down loopback) when we may create one; the audit hook
        # below is what the sandbox relies on, this only backs it up.
        try:
            import ctypes

            libc = ctypes.CDLL(None, use_errno=True)
            libc.unshare(0x40000000)  # CLONE_NEWNET; fails harmlessly without CAP_SYS_ADMIN
        except (OSError, AttributeError):
            pass

    def set_limits() -> None:
        memory = request["memory_bytes"]
        for which, value in ((resource.RLIMIT_AS, memory), (resource.RLIMIT_DATA, memory),
                             (resource.RLIMIT_CPU, request["cpu_seconds"]),
                             (resource.RLIMIT_FSIZE, request["file_bytes"]), (resource.RLIMIT_CORE, 0)):
            soft, hard = resource.getrlimit(which)
            value = value if hard == resource.RLIM_INFINITY else min(value, hard)
            # CPU gets one spare second of hard limit so SIGXCPU (catchable) comes before SIGKILL.
            top = value + 1 if which == resource.RLIMIT_CPU else value
            resource.setrlimit(which, (value, top if hard == resource.RLIM_INFINITY else min(top, hard)))

    def install_guard(root: str) -> None:
        # Defined in its own function so the hook is reachable from no frame the tool can inspect.
        write_flags = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_APPEND | os.O_TRUNC
        spawning = frozenset({"subprocess.Popen", "os.system", "os.exec", "os.posix_spawn", "os.spawn",
                              "os.fork", "os.forkpty", "pty.spawn", "os.startfile"})
        other = {"os.kill": "signalling a process", "os.killpg": "signalling a process group",
                 "ctypes.dlopen": "loading native code through ctypes",
                 "ctypes.dlsym": "loading native code through ctypes",
                 "ctypes.dlsym/handle": "loading native code through ctypes",
                 "resource.setrlimit": "changing resource limits", "resource.prlimit": "changing resource limits",
                 "gc.get_objects": "walking the garbage collector", "gc.get_referrers":
                 "walking the garbage collector", "gc.get_referents": "walking the garbage collector"}
        # event -> ((path argument, index of its dir_fd argument or None), ...), and whether a file
        # descriptor may stand in for the path (ftruncate on a file already opened for writing).
        path_events = {
            "os.remove": (((0, 1),), False), "os.rmdir": (((0, 1),), False), "os.mkdir": (((0, 2),), False),
            "os.rename": (((0, 2), (1, 3)), False), "os.link": (((0, 2), (1, 3)), False),
            "os.symlink": (((0, None), (1, 2)), False), "os.truncate": (((0, None),), True),
            "os.chmod": (((0, 2),), False), "os.chown": (((0, 3),), False), "os.utime": (((0, 3),), False),
            "os.setxattr": (((0, None),), False), "os.removexattr": (((0, None),), False),
            "os.chflags": (((0, None),), False), "os.lchflags": (((0, None),), False),
            "os.lchmod": (((0, None),), False), "shutil.rmtree": (((0, 1),), False),
            "shutil.copyfile": (((1, None),), False), "shutil.copymode": (((1, None),), False),
            "shutil.copystat": (((1, None),), False), "shutil.copytree": (((1, None),), False),
            "shutil.move": (((0, None), (1, None)), False), "shutil.chown": (((0, None),), False),
            "shutil.make_archive": (((0, None),), False), "shutil.unpack_archive": (((1, None),), False),
            "sqlite3.connect": (((0, None),), False),
        }
        realpath, fspath, join, isabs, sep = os.path.realpath, os.fspath, os.path.join, os.path.isabs, os.sep
        own_proc = f"/proc/{os.getpid()}"

        def text(path: object) -> str:
            value = fspath(path)
            return value.decode("utf-8", "surrogateescape") if isinstance(value, bytes) else value

        def resolve(path: object, dir_fd: object) -> str:
            value = text(path)
            if isinstance(dir_fd, int) and dir_fd >= 0 and not isabs(value):
                # rmtree and friends work relative to an open directory: find out which one.
                try:
                    value = join(os.readlink(f"/proc/self/fd/{dir_fd}"), value)
                except OSError:
                    refuse(f"a path relative to an unknown directory descriptor ({value!r})")
            return realpath(value)  # resolves symlinks, so a link out of the directory is caught

        def inside(full: str) -> bool:
            return full == root or full.startswith(root + sep) or full == os.devnull

        def refuse(what: str) -> None:
            raise PermissionError(refusal_mark + what)

        def hook(event: str, args: tuple) -> None:
            if event.startswith("socket."):
                # Unix socket pairs (asyncio's self-pipe) are allowed; connecting or binding anything is not.
                if event == "socket.__new__" and len(args) > 1 and args[1] == socket.AF_UNIX:
                    return
                refuse(f"network access ({event})")
            elif event in spawning:
                refuse(f"starting a process ({event})")
            elif event in other:
                refuse(f"{other[event]} ({event})")
            elif event == "open":
                path, mode, flags = (tuple(args) + (None, None, None))[:3]
                if path is None or isinstance(path, int):
                    return
                full = realpath(text(path))
                # Another process's /proc entry holds its environment (the parent's API keys) and memory.
                if full.startswith("/proc/") and full.split("/")[2].isdigit() and not (
                        full == own_proc or full.startswith(own_proc + "/")):
                    refuse(f"reading {full!r}, another process's /proc entry")
                writes = (isinstance(mode, str) and any(c in mode for c in "wax+")) or (
                    isinstance(flags, int) and flags & write_flags)
                if writes and not inside(full):
                    refuse(f"writing {text(path)!r} outside the sandbox's working directory")
            elif event in path_events:
                pairs, fd_ok = path_events[event]
                for index, dir_index in pairs:
                    target = args[index] if index < len(args) else None
                    if target is None:
                        continue
                    if isinstance(target, int):
                        if not fd_ok:
                            refuse(f"{event} on a file descriptor")
                        continue
                    dir_fd = args[dir_index] if dir_index is not None and dir_index < len(args) else None
                    if event == "sqlite3.connect":
                        name = text(target)
                        if name in ("", ":memory:"):
                            continue
                        target = name.removeprefix("file:").split("?")[0]
                    if event == "os.symlink" and index == 0 and not isabs(text(target)) and len(args) > 1:
                        # A relative link target is relative to the link's own directory.
                        link_dir = os.path.dirname(resolve(args[1], args[2] if len(args) > 2 else None))
                        target = join(link_dir, text(target))
                    if not inside(resolve(target, dir_fd)):
                        refuse(f"{event} on {text(args[index])!r} outside the sandbox's working directory")

        sys.addaudithook(hook)

    def refusal_in(exc: BaseException) -> str | None:
        seen = 0
        current: BaseException | None = exc
        while current is not None and seen < 20:
            if isinstance(current, PermissionError) and str(current).startswith(refusal_mark):
                return str(current)[len(refusal_mark):]
            current = current.__cause__ or current.__context__
            seen += 1
        return None

    def report(exc: BaseException, stage: str) -> None:
        refused = refusal_in(exc)
        if refused is not None:
            fail("refused", f"the sandbox refused {refused}")
        elif isinstance(exc, MemoryError):
            fail("limit", f"MemoryError{stage}: the tool exceeded the sandbox memory limit of "
                          f"{request['memory_bytes'] // (1024 * 1024)} MB")
        elif isinstance(exc, OSError) and exc.errno == errno.EFBIG:
            fail("limit", f"the tool wrote past the file size limit of {request['file_bytes'] // (1024 * 1024)} MB")
        elif isinstance(exc, SystemExit):
            fail("server", f"the tool called sys.exit({exc.code!r}){stage}")
        else:
            fail("server", f"{type(exc).__name__}{stage}: {exc}")

    if request["new_netns"]:
        isolate_network()
    import inspect

    set_limits()
    workdir = os.path.realpath(request["workdir"])
    os.chdir(workdir)
    sys.dont_write_bytecode = True
    install_guard(workdir)
    del isolate_network, set_limits, install_guard

    name = "sandboxed_tool"
    try:
        code = compile(request["source"], request["filename"], "exec")
        module = type(sys)(name)
        module.__file__ = request["filename"]
        sys.modules[name] = module  # dataclasses and pickle look their module up here
        if request["tool_dir"]:
            sys.path.insert(0, request["tool_dir"])
        exec(code, module.__dict__)  # running the tool is the point; the guard is in place
    except BaseException as exc:  # every failure becomes an answer
        if refusal_in(exc) is None and not isinstance(exc, MemoryError | SystemExit):
            fail("unavailable", f"the tool could not be loaded: {type(exc).__name__}: {exc}")
        else:
            report(exc, " while loading the tool")
        return
    function = getattr(module, request["function"], None)
    if not callable(function):
        fail("not_found", f"the tool's source defines no function {request['function']!r}")
        return
    arguments = json.loads(request["arguments"])
    try:
        signature = inspect.signature(function)
    except (TypeError, ValueError):
        signature = None
    if signature is not None:
        try:
            signature.bind(**arguments)
        except TypeError as exc:
            fail("invalid_params", f"{request['function']}(): {exc}")
            return
    try:
        value = function(**arguments)
        if inspect.isawaitable(value):
            import asyncio

            value = asyncio.run(value)
    except TypeError as exc:
        if signature is None and "argument" in str(exc):
            fail("invalid_params", f"{request['function']}(): {exc}")
        else:
            report(exc, "")
        return
    except BaseException as exc:  # every failure becomes an answer
        report(exc, "")
        return
    try:
        try:
            encoded = json.dumps(value, ensure_ascii=False, default=str)
        except (TypeError, ValueError):  # non-string keys, cycles: the readable form will do
            encoded = json.dumps(str(value), ensure_ascii=False)
        size = len(encoded.encode("utf-8", "surrogatepass"))
        if size > request["max_output"]:
            fail("limit", f"the return value is {size:,} bytes of JSON; the limit is {request['max_output']:,}")
            return
        answer('{"ok": true, "data": ' + encoded + "}")
    except BaseException as exc:  # e.g. a __str__ that raises or runs out of memory
        report(exc, " while encoding the return value")
