"""The child side of the Python sandbox (see :mod:`core.execution.sandbox`).

The parent runs this file by path, ``python -I -B /abs/path/core/execution/sandbox_child.py``, inside
bubblewrap or not, and hands it the call as JSON on stdin. It uses only the standard library and imports
nothing from this project. Before any of the tool's code is compiled it

1. sets its resource limits (memory, CPU seconds, file size, no core dumps) and moves into the call's
   working directory;
2. hardens itself at the kernel level (:func:`harden`, the only place that uses :mod:`ctypes`): a new
   network namespace when asked and permitted, all capabilities dropped, ``no_new_privs``, a Landlock
   ruleset (read-only access to the interpreter and a few system files, read-write access to the working
   directory only), and a seccomp-bpf filter (:func:`seccomp_program`) that makes process creation,
   program execution, sockets, debugging other processes, signalling other processes, raising limits and
   a list of administrative calls fail;
3. evicts ``ctypes``, ``_posixsubprocess`` and the other process- or native-code modules from
   ``sys.modules`` and from every module that refers to them (``_posixsubprocess`` is replaced by a stub
   that refuses, so ``import subprocess`` and ``import asyncio`` still work and stay harmless);
4. reports on the status descriptor what took effect, then closes it (the tool cannot forge it);
5. installs an audit hook (:func:`install_guard`) that refuses those imports, process creation, sockets,
   native code through ctypes, signals, limit changes, writes outside the working directory and reads
   outside an allow-list.

The audit hook is not a boundary on its own (an extension module loaded once, like ``_ctypes`` in
:func:`harden`, comes back from ``_imp.create_dynamic`` without an import event, for one): the seccomp
filter, Landlock and bubblewrap are what hold against code written to defeat it.
"""

from __future__ import annotations

import errno
import json
import os
import resource
import stat
import struct
import sys

REFUSAL_MARK = "sandbox refused: "

# Modules that start processes or reach native code. Importing them is refused; any already loaded before
# the hook is installed is evicted first.
FORBIDDEN_MODULES = frozenset({
    "_posixsubprocess", "_ctypes", "ctypes", "multiprocessing", "_multiprocessing", "pty", "_posixshmem",
    "concurrent.futures.process",
    # sub-interpreters (which would run without this hook) and CPython's own test extensions (which
    # poke at memory)
    "_xxsubinterpreters", "_xxinterpchannels", "_testcapi", "_testinternalcapi", "_testmultiphase",
    "_testbuffer", "_testimportmultiple", "_testsinglephase", "_testclinic", "_ctypes_test", "_xxtestfuzz",
})

# /etc files a tool may read (and that bubblewrap binds into its otherwise empty /etc).
ETC_READABLE = ("/etc/localtime", "/etc/timezone", "/etc/ssl", "/etc/ca-certificates",
                "/etc/ca-certificates.conf", "/etc/mime.types", "/etc/ld.so.cache", "/etc/ld.so.conf",
                "/etc/ld.so.conf.d")
# Other system paths a tool may read, besides the interpreter's own directories and sys.path.
SYSTEM_READABLE = ("/usr", "/lib", "/lib64", "/lib32", "/libx32", "/bin", "/sbin", *ETC_READABLE,
                   "/dev/urandom", "/dev/random", "/dev/zero", "/proc/cpuinfo", "/proc/meminfo",
                   "/sys/devices/system/cpu")
WRITABLE_DEVICES = ("/dev/null",)

# -- seccomp ------------------------------------------------------------------------------------------

AUDIT_ARCH = {"x86_64": 0xC000003E, "aarch64": 0xC00000B7}
_X32_SYSCALL_BIT = 0x40000000
# System call numbers, (x86_64, aarch64); None where the architecture has no such call.
_SYSCALLS = {
    "socket": (41, 198), "clone": (56, 220), "fork": (57, None), "vfork": (58, None), "execve": (59, 221),
    "execveat": (322, 281), "clone3": (435, 435), "kill": (62, 129), "tkill": (200, 130),
    "tgkill": (234, 131), "ptrace": (101, 117), "process_vm_readv": (310, 270),
    "process_vm_writev": (311, 271), "setrlimit": (160, 164), "prlimit64": (302, 261),
    "unshare": (272, 97), "setns": (308, 268), "mount": (165, 40), "umount2": (166, 39),
    "pivot_root": (155, 41), "chroot": (161, 51), "bpf": (321, 280), "perf_event_open": (298, 241),
    "userfaultfd": (323, 282), "keyctl": (250, 219), "add_key": (248, 217), "request_key": (249, 218),
    "io_uring_setup": (425, 425), "io_uring_enter": (426, 426), "io_uring_register": (427, 427),
    "kexec_load": (246, 104), "kexec_file_load": (320, 294), "init_module": (175, 105),
    "finit_module": (313, 273), "delete_module": (176, 106), "open_by_handle_at": (304, 265),
    "name_to_handle_at": (303, 264), "pidfd_open": (434, 434), "pidfd_getfd": (438, 438),
    "pidfd_send_signal": (424, 424), "rt_sigqueueinfo": (129, 138), "rt_tgsigqueueinfo": (297, 240),
    "open_tree": (428, 428), "move_mount": (429, 429), "fsopen": (430, 430), "fsconfig": (431, 431),
    "fsmount": (432, 432), "fspick": (433, 433), "mount_setattr": (442, 442), "reboot": (169, 142),
    "mknod": (133, None), "mknodat": (259, 33), "iopl": (172, None), "ioperm": (173, None),
    "capset": (126, 91),
}
# Fail with EPERM whatever the arguments. socket() is refused for every family, AF_UNIX included:
# socketpair() (asyncio's self-pipe) is all a tool needs, and a Unix socket could reach local daemons.
_DENIED = ("socket", "fork", "vfork", "execve", "execveat", "ptrace", "process_vm_readv", "process_vm_writev",
           "tkill", "setrlimit", "unshare", "setns", "mount", "umount2", "pivot_root", "chroot", "bpf",
           "perf_event_open", "userfaultfd", "keyctl", "add_key", "request_key", "io_uring_setup",
           "io_uring_enter", "io_uring_register", "kexec_load", "kexec_file_load", "init_module",
           "finit_module", "delete_module", "open_by_handle_at", "name_to_handle_at", "pidfd_open",
           "pidfd_getfd", "pidfd_send_signal", "rt_sigqueueinfo", "rt_tgsigqueueinfo", "open_tree",
           "move_mount", "fsopen", "fsconfig", "fsmount", "fspick", "mount_setattr", "reboot", "iopl",
           "ioperm", "capset")
_CLONE_THREAD = 0x00010000
_S_IFMT, _S_IFCHR, _S_IFBLK = 0o170000, 0o020000, 0o060000
# classic BPF opcodes and seccomp return values
_LD_ABS, _JEQ, _JGE, _JSET, _AND, _RET = 0x20, 0x15, 0x35, 0x45, 0x54, 0x06
_RET_KILL_PROCESS, _RET_ERRNO, _RET_ALLOW = 0x80000000, 0x00050000, 0x7FFF0000


def seccomp_program(machine: str, own_pid: int) -> bytes:
    """The seccomp-bpf filter for ``machine`` (``platform.machine()``), as packed ``sock_filter`` entries.

    Another architecture (a 32-bit call on x86_64, say) kills the process; execve, execveat, fork, vfork,
    clone without CLONE_THREAD (a process rather than a thread), socket, ptrace, process_vm_*, signals to
    other processes, setrlimit and prlimit64 with a new limit, device nodes and administrative calls
    (mount, namespaces, modules, keyrings, bpf, io_uring...) fail with EPERM; clone3 fails with ENOSYS so
    that glibc falls back to clone, whose flags a filter can read. Raises KeyError for an unsupported
    architecture.
    """
    arch = AUDIT_ARCH[machine]
    column = 0 if machine == "x86_64" else 1
    nr = {name: pair[column] for name, pair in _SYSCALLS.items() if pair[column] is not None}

    def arg(index: int, high: bool = False) -> int:  # offset of args[index] in struct seccomp_data (LE)
        return 16 + 8 * index + (4 if high else 0)

    code: list[tuple[int, object, object, int]] = []
    labels: dict[str, int] = {}

    def emit(op: int, k: int, jt: object = 0, jf: object = 0) -> None:
        code.append((op, jt, jf, k))

    def label(name: str) -> None:
        labels[name] = len(code)

    emit(_LD_ABS, 4)  # seccomp_data.arch
    emit(_JEQ, arch, 0, "kill")
    emit(_LD_ABS, 0)  # seccomp_data.nr
    if machine == "x86_64":
        emit(_JGE, _X32_SYSCALL_BIT, "deny", 0)  # the x32 ABI shares the arch value
    for name in _DENIED:
        if name in nr:
            emit(_JEQ, nr[name], "deny", 0)
    emit(_JEQ, nr["clone3"], "enosys", 0)
    emit(_JEQ, nr["clone"], "clone", 0)
    emit(_JEQ, nr["kill"], "own_pid", 0)
    emit(_JEQ, nr["tgkill"], "own_pid", 0)
    emit(_JEQ, nr["prlimit64"], "prlimit", 0)
    emit(_JEQ, nr["mknodat"], "mknodat", 0)
    if "mknod" in nr:
        emit(_JEQ, nr["mknod"], "mknod", 0)
    emit(_RET, _RET_ALLOW)
    label("clone")
    emit(_LD_ABS, arg(0))
    emit(_JSET, _CLONE_THREAD, "allow", "deny")
    label("own_pid")  # kill(pid, sig) and tgkill(tgid, tid, sig): only this process
    emit(_LD_ABS, arg(0))
    emit(_JEQ, own_pid & 0xFFFFFFFF, "allow", "deny")
    label("prlimit")  # prlimit64(pid, resource, new_limit, old_limit): reading only
    emit(_LD_ABS, arg(2))
    emit(_JEQ, 0, 0, "deny")
    emit(_LD_ABS, arg(2, high=True))
    emit(_JEQ, 0, "allow", "deny")
    for name, index in (("mknodat", 2), ("mknod", 1)):  # no device nodes
        label(name)
        emit(_LD_ABS, arg(index))
        emit(_AND, _S_IFMT)
        emit(_JEQ, _S_IFCHR, "deny", 0)
        emit(_JEQ, _S_IFBLK, "deny", "allow")
    label("allow")
    emit(_RET, _RET_ALLOW)
    label("deny")
    emit(_RET, _RET_ERRNO | errno.EPERM)
    label("enosys")
    emit(_RET, _RET_ERRNO | errno.ENOSYS)
    label("kill")
    emit(_RET, _RET_KILL_PROCESS)

    packed = bytearray()
    for index, (op, jt, jf, k) in enumerate(code):
        offsets = [labels[j] - index - 1 if isinstance(j, str) else j for j in (jt, jf)]
        if not all(0 <= o <= 255 for o in offsets):
            raise ValueError("seccomp program: jump out of range")
        packed += struct.pack("=HBBI", op, offsets[0], offsets[1], k)
    return bytes(packed)


# -- Landlock -----------------------------------------------------------------------------------------

_LANDLOCK_CREATE_RULESET, _LANDLOCK_ADD_RULE, _LANDLOCK_RESTRICT_SELF = 444, 445, 446
_FS_EXECUTE, _FS_WRITE_FILE, _FS_READ_FILE, _FS_READ_DIR = 1 << 0, 1 << 1, 1 << 2, 1 << 3
_FS_MAKE_CHAR, _FS_MAKE_BLOCK, _FS_TRUNCATE, _FS_IOCTL_DEV = 1 << 6, 1 << 11, 1 << 14, 1 << 15
_FS_FILE_ONLY = _FS_EXECUTE | _FS_WRITE_FILE | _FS_READ_FILE | _FS_TRUNCATE | _FS_IOCTL_DEV


def _landlock(libc: object, ctypes: object, readable: tuple[str, ...], writable_dirs: tuple[str, ...],
              writable_files: tuple[str, ...]) -> int:
    """Restrict this process's file access with Landlock; returns the ABI version, 0 when unsupported."""
    syscall = libc.syscall
    abi = syscall(_LANDLOCK_CREATE_RULESET, None, ctypes.c_size_t(0), ctypes.c_uint32(1))
    if abi < 1:
        return 0
    handled = (1 << 13) - 1  # ABI 1: execute ... make_sym
    handled |= (1 << 13) if abi >= 2 else 0  # refer
    handled |= _FS_TRUNCATE if abi >= 3 else 0
    handled |= _FS_IOCTL_DEV if abi >= 5 else 0
    net = 0b11 if abi >= 4 else 0  # TCP bind and connect, with no rule allowing any port
    scoped = 0b11 if abi >= 6 else 0  # abstract Unix sockets and signals outside this domain
    size = 24 if abi >= 6 else 16 if abi >= 4 else 8
    attr = ctypes.create_string_buffer(struct.pack("=QQQ", handled, net, scoped)[:size], size)
    ruleset = syscall(_LANDLOCK_CREATE_RULESET, attr, ctypes.c_size_t(size), ctypes.c_uint32(0))
    if ruleset < 0:
        raise OSError(ctypes.get_errno(), "landlock_create_ruleset failed")
    read = _FS_READ_FILE | _FS_READ_DIR
    everything = handled & ~(_FS_MAKE_CHAR | _FS_MAKE_BLOCK)
    rules = [(p, read) for p in readable] + [(p, everything) for p in writable_dirs] + [
        (p, _FS_READ_FILE | _FS_WRITE_FILE | _FS_TRUNCATE) for p in writable_files]
    try:
        for path, access in rules:
            try:
                fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
            except OSError:
                continue  # not on this system
            try:
                allowed = access & handled
                if not stat.S_ISDIR(os.fstat(fd).st_mode):
                    allowed &= _FS_FILE_ONLY
                rule = ctypes.create_string_buffer(struct.pack("=Qi", allowed, fd), 12)
                if syscall(_LANDLOCK_ADD_RULE, ruleset, ctypes.c_int(1), rule, ctypes.c_uint32(0)) < 0:
                    raise OSError(ctypes.get_errno(), f"landlock_add_rule failed for {path}")
            finally:
                os.close(fd)
        if syscall(_LANDLOCK_RESTRICT_SELF, ruleset, ctypes.c_uint32(0)) < 0:
            raise OSError(ctypes.get_errno(), "landlock_restrict_self failed")
    finally:
        os.close(ruleset)
    return abi


# -- hardening --------------------------------------------------------------------------------------

_PR_SET_SECCOMP, _PR_SET_NO_NEW_PRIVS, _PR_CAPBSET_DROP, _PR_CAP_AMBIENT = 22, 38, 24, 47
_SECCOMP_MODE_FILTER, _CLONE_NEWNET = 2, 0x40000000


def harden(*, new_netns: bool, readable: tuple[str, ...], writable_dirs: tuple[str, ...],
           writable_files: tuple[str, ...] = WRITABLE_DEVICES, machine: str | None = None,
           landlock: bool = True, seccomp: bool = True) -> dict:
    """Kernel-level isolation of this process, before any tool code: returns what took effect.

    ``{"netns": bool, "landlock": abi or 0, "seccomp": bool, "notes": [...]}``. A failure to install
    the seccomp filter on a supported architecture raises; Landlock and the namespace are best effort.
    ctypes is imported here only, and :func:`evict_forbidden_modules` removes it afterwards. ``landlock``
    and ``seccomp`` switch a layer off, for tests that check the other alone.
    """
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    libc.prctl.argtypes = [ctypes.c_int, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong]
    libc.prctl.restype = ctypes.c_int
    done: dict = {"netns": False, "landlock": 0, "seccomp": False, "notes": []}
    notes = done["notes"]
    if new_netns:  # an empty network namespace (only a down loopback); needs CAP_SYS_ADMIN
        if libc.unshare(_CLONE_NEWNET) == 0:
            done["netns"] = True
        else:
            notes.append(f"no network namespace: {os.strerror(ctypes.get_errno())}")
    # Drop every capability (a root parent would otherwise hand them all to the tool).
    for cap in range(64):
        if libc.prctl(_PR_CAPBSET_DROP, cap, 0, 0, 0) != 0 and ctypes.get_errno() == errno.EINVAL:
            break
    libc.prctl(_PR_CAP_AMBIENT, 4, 0, 0, 0)  # PR_CAP_AMBIENT_CLEAR_ALL
    header = ctypes.create_string_buffer(struct.pack("=Ii", 0x20080522, 0), 8)  # _LINUX_CAPABILITY_VERSION_3
    data = ctypes.create_string_buffer(24)  # two empty __user_cap_data_struct
    machine = machine or os.uname().machine
    if machine in AUDIT_ARCH:
        libc.syscall(_SYSCALLS["capset"][0 if machine == "x86_64" else 1], header, data)
    if libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_NO_NEW_PRIVS) failed")
    try:
        done["landlock"] = _landlock(libc, ctypes, readable, writable_dirs, writable_files) if landlock else 0
        if landlock and not done["landlock"]:
            notes.append("no Landlock: the kernel does not offer it")
    except OSError as exc:
        notes.append(f"no Landlock: {exc}")
    if not seccomp:
        return done
    if machine not in AUDIT_ARCH:
        notes.append(f"no seccomp filter: unsupported architecture {machine!r}")
        return done
    program = seccomp_program(machine, os.getpid())
    buffer = ctypes.create_string_buffer(program, len(program))

    class SockFprog(ctypes.Structure):
        _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]

    fprog = SockFprog(len(program) // 8, ctypes.addressof(buffer))
    if libc.prctl(_PR_SET_SECCOMP, _SECCOMP_MODE_FILTER, ctypes.addressof(fprog), 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_SECCOMP) failed")
    done["seccomp"] = True
    return done


def _refusing_posixsubprocess() -> object:
    module = type(sys)("_posixsubprocess")

    def fork_exec(*args: object) -> None:
        raise PermissionError(REFUSAL_MARK + "starting a process (_posixsubprocess.fork_exec)")

    module.fork_exec = fork_exec
    return module


def evict_forbidden_modules() -> list[str]:
    """Remove the forbidden modules from ``sys.modules`` and every reference other modules hold to them;
    ``_posixsubprocess`` becomes a stub that refuses. Returns the names evicted."""
    evicted = {}
    for name in list(sys.modules):
        parts = name.split(".")
        if name in FORBIDDEN_MODULES or parts[0] in FORBIDDEN_MODULES or parts[-1] in FORBIDDEN_MODULES:
            evicted[name] = sys.modules.pop(name)
    stub = _refusing_posixsubprocess()
    gone = {id(module) for module in evicted.values() if module is not None}
    real_posixsubprocess = evicted.get("_posixsubprocess")
    for module in list(sys.modules.values()):
        namespace = getattr(module, "__dict__", None)
        if not isinstance(namespace, dict):
            continue
        for key, value in list(namespace.items()):
            if id(value) in gone:
                if real_posixsubprocess is not None and value is real_posixsubprocess:
                    namespace[key] = stub
                else:
                    del namespace[key]
    sys.modules["_posixsubprocess"] = stub
    names = sorted(evicted)
    evicted.clear()
    real_posixsubprocess = None
    import gc

    gc.collect()
    return names


# -- the audit hook -------------------------------------------------------------------------------------

def install_guard(workdir: str, readable: tuple[str, ...]) -> None:
    """Install the audit hook. Everything it uses is bound here, as closure variables, so a tool that
    rebinds module attributes (``os.getcwd``, ``os.path.realpath``) or builtins cannot change what it
    decides; the hook itself is reachable from no object the tool can get at."""
    import builtins
    import pathlib
    import posix

    _type, _len, _str, _bytes, _int, _tuple = builtins.type, builtins.len, builtins.str, builtins.bytes, \
        builtins.int, builtins.tuple
    _isinstance, _any = builtins.isinstance, builtins.any
    _PermissionError, _OSError, _ImportError = builtins.PermissionError, builtins.OSError, builtins.ImportError
    _lstat, _stat, _readlink, _getcwd, _fspath = posix.lstat, posix.stat, posix.readlink, posix.getcwd, \
        posix.fspath
    _DirEntry = posix.DirEntry
    _path_types = (pathlib.PosixPath, pathlib.PurePosixPath)
    _genuine_fspath, _genuine_str = pathlib.PurePath.__fspath__, pathlib.PurePath.__str__
    writable_devices = WRITABLE_DEVICES
    mark = REFUSAL_MARK
    af_unix = 1
    o_write = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_APPEND | os.O_TRUNC
    o_dir = os.O_DIRECTORY | os.O_PATH
    forbidden = FORBIDDEN_MODULES
    own_proc = f"/proc/{os.getpid()}"
    allowed_read = _tuple(r for r in readable if r != "/")
    spawning = frozenset({"subprocess.Popen", "os.system", "os.exec", "os.posix_spawn", "os.spawn",
                          "os.fork", "os.forkpty", "pty.spawn", "os.startfile"})
    other = {"os.kill": "signalling a process", "os.killpg": "signalling a process group",
             "signal.pthread_kill": "signalling a thread",
             "resource.setrlimit": "changing resource limits", "resource.prlimit": "changing resource limits",
             "gc.get_objects": "walking the garbage collector",
             "gc.get_referrers": "walking the garbage collector",
             "gc.get_referents": "walking the garbage collector",
             "cpython.PyInterpreterState_New": "starting a sub-interpreter (it would have no audit hook)",
             "sys.remote_exec": "running code in another process"}
    listing = frozenset({"os.listdir", "os.scandir"})
    # event -> ((path argument, index of its dir_fd argument or None), ...), and whether a file
    # descriptor may stand in for the path (ftruncate on a file already opened for writing).
    path_events = {
        "os.remove": (((0, 1),), False), "os.rmdir": (((0, 1),), False), "os.mkdir": (((0, 2),), False),
        "os.rename": (((0, 2), (1, 3)), False), "os.link": (((0, 2), (1, 3)), False),
        "os.truncate": (((0, None),), True),
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

    def refuse(what: str) -> None:
        raise _PermissionError(mark + what)

    def text(path: object) -> str:
        """The path the operating system will see, as an exact str (never a subclass, which could lie
        about itself, and never a second call of a path-like object, which could answer differently)."""
        kind = _type(path)
        if kind is _str:
            return path
        if kind is _bytes:
            return path.decode("utf-8", "surrogateescape")
        if _isinstance(path, _str):
            return _str.__str__(path)
        if _isinstance(path, _bytes):
            return b"".join((path,)).decode("utf-8", "surrogateescape")
        if kind is _DirEntry:
            return text(path.path)
        if kind in _path_types and kind.__fspath__ is _genuine_fspath and kind.__str__ is _genuine_str:
            return text(_genuine_str(path))
        refuse(f"a path given as a {kind.__name__} object (use str, bytes or pathlib)")
        return ""

    def resolve(value: str) -> str:
        """Absolute, symlinks resolved, like os.path.realpath but on bound functions only."""
        if not value.startswith("/"):
            value = _getcwd() + "/" + value
        pending = value.split("/")
        pending.reverse()
        done = ""
        links = 0
        missing = False
        while pending:
            part = pending.pop()
            if part in ("", "."):
                continue
            if part == "..":
                if missing:
                    refuse(f"a path that climbs out of a missing directory ({value!r})")
                done = done.rpartition("/")[0]
                continue
            candidate = done + "/" + part
            if missing:
                done = candidate
                continue
            try:
                info = _lstat(candidate)
            except _OSError:
                missing = True
                done = candidate
                continue
            if (info.st_mode & 0o170000) == 0o120000:
                links += 1
                if links > 40:
                    refuse(f"a path with too many symbolic links ({value!r})")
                target = _readlink(candidate)
                if target.startswith("/"):
                    done = ""
                parts = target.split("/")
                parts.reverse()
                pending.extend(parts)
                continue
            done = candidate
        return done or "/"

    def under(full: str, root: str) -> bool:
        return full == root or full.startswith(root + "/")

    def inside(full: str) -> bool:
        return under(full, workdir) or full in writable_devices

    def readable_path(full: str) -> bool:
        if under(full, workdir) or full in writable_devices or under(full, own_proc):
            return True
        for root in allowed_read:
            if under(full, root):
                return True
        return False

    def check_read(path: object, what: str, writes: bool = False) -> str:
        shown = text(path)
        full = resolve(shown)
        if full.startswith("/proc/") and full.split("/")[2].isdigit() and not under(full, own_proc):
            refuse(f"{what} {full!r}, another process's /proc entry")
        if writes:
            if not inside(full):
                refuse(f"writing {shown!r} outside the sandbox's working directory")
        elif not readable_path(full):
            refuse(f"{what} {shown!r}: outside the files a sandboxed tool may read")
        return full

    def resolve_at(path: object, dir_fd: object) -> str:
        value = text(path)
        if _type(dir_fd) is _int and dir_fd >= 0 and not value.startswith("/"):
            # rmtree and friends work relative to an open directory: find out which one.
            try:
                value = _readlink(f"/proc/self/fd/{dir_fd}") + "/" + value
            except _OSError:
                refuse(f"a path relative to an unknown directory descriptor ({value!r})")
        return resolve(value)

    def check_open(args: tuple) -> None:
        path, mode, flags = (args + (None, None, None))[:3]
        if path is None or _type(path) is _int:
            return
        if mode is None and not text(path).startswith("/") and ".." in text(path).split("/"):
            # os.open's dir_fd is not in the event, so a relative path is resolved here against the working
            # directory; climbing with ".." from somewhere else could then land outside it.
            refuse(f"os.open of a relative path that climbs with '..' ({text(path)!r})")
        writes = (_type(mode) is _str and _any(c in mode for c in "wax+")) or (
            _type(flags) is _int and flags & o_write)
        full = check_read(path, "reading", writes=bool(writes))
        if not inside(full) and ((_type(flags) is _int and flags & o_dir) or _is_dir(full)):
            # os.open(..., dir_fd=) paths are not in the audit event: no directory descriptors outside.
            refuse(f"opening the directory {full!r} outside the sandbox's working directory")

    def _is_dir(full: str) -> bool:
        try:
            return (_stat(full).st_mode & 0o170000) == 0o040000
        except _OSError:
            return False

    def hook(event: str, args: tuple) -> None:
        if event == "open":
            check_open(args)
        elif event == "import":
            name = args[0] if args else ""
            if _type(name) is not _str:
                refuse("an import with an odd module name")
            # the last component too: an extension loaded as "pkg._posixsubprocess" is _posixsubprocess
            # (its init function is found by that name)
            parts = name.split(".")
            if name in forbidden or parts[0] in forbidden or parts[-1] in forbidden:
                # an ImportError, so that libraries with an optional ctypes (numpy) still load without it
                raise _ImportError(f"{mark}importing {name!r}, which starts processes or runs native code",
                                   name=name)
        elif event.startswith("socket."):
            # Unix socket pairs (asyncio's self-pipe) are allowed; connecting or binding anything is not.
            if event == "socket.__new__" and _len(args) > 1 and args[1] == af_unix:
                return
            refuse(f"network access ({event})")
        elif event.startswith("ctypes."):
            refuse(f"native code through ctypes ({event})")
        elif event in spawning:
            refuse(f"starting a process ({event})")
        elif event == "os.symlink":
            # A link that points inside when made can point outside once moved: none are made at all.
            refuse(f"creating a symbolic link ({text(args[1]) if _len(args) > 1 else '?'!r})")
        elif event in other:
            refuse(f"{other[event]} ({event})")
        elif event in listing:
            target = args[0] if args else None
            if target is not None and _type(target) is not _int:
                check_read(target, "listing")
        elif event in path_events:
            pairs, fd_ok = path_events[event]
            for index, dir_index in pairs:
                target = args[index] if index < _len(args) else None
                if target is None:
                    continue
                if _type(target) is _int:
                    if not fd_ok:
                        refuse(f"{event} on a file descriptor")
                    continue
                dir_fd = args[dir_index] if dir_index is not None and dir_index < _len(args) else None
                if event.startswith("sqlite3.connect"):
                    name = text(target)
                    if name in ("", ":memory:") or name.startswith("file::memory:"):
                        continue
                    target = name.removeprefix("file:").split("?")[0]
                if not inside(resolve_at(target, dir_fd)):
                    refuse(f"{event} on {text(args[index])!r} outside the sandbox's working directory")

    sys.addaudithook(hook)


# -- running the tool --------------------------------------------------------------------------------

def readable_roots(workdir: str, tool_dir: str | None) -> tuple[str, ...]:
    """Where a tool may read: the interpreter's prefixes and sys.path, the tool's own directory, the
    working directory and a few system paths; each resolved (symlinks followed), missing ones left out."""
    candidates = [sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix,
                  *[p for p in sys.path if isinstance(p, str) and p], *SYSTEM_READABLE]
    if tool_dir:
        candidates.append(tool_dir)
    roots: list[str] = []
    for candidate in candidates:
        for path in {candidate, os.path.realpath(candidate)}:
            if os.path.isabs(path) and os.path.exists(path) and path not in roots and path != "/":
                roots.append(path)
    return (*roots, workdir)


def _set_limits(request: dict) -> None:
    memory = request["memory_bytes"]
    for which, value in ((resource.RLIMIT_AS, memory), (resource.RLIMIT_DATA, memory),
                         (resource.RLIMIT_CPU, request["cpu_seconds"]),
                         (resource.RLIMIT_FSIZE, request["file_bytes"]), (resource.RLIMIT_CORE, 0)):
        soft, hard = resource.getrlimit(which)
        value = value if hard == resource.RLIM_INFINITY else min(value, hard)
        # CPU gets one spare second of hard limit so SIGXCPU (catchable) comes before SIGKILL.
        top = value + 1 if which == resource.RLIMIT_CPU else value
        resource.setrlimit(which, (value, top if hard == resource.RLIM_INFINITY else min(top, hard)))


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


def main() -> None:
    request = json.loads(sys.stdin.buffer.read().decode("utf-8"))
    result_fd = request["result_fd"]

    def answer(text: str) -> None:
        # Start from an empty file: a tool that scribbled on this descriptor does not corrupt the answer.
        os.ftruncate(result_fd, 0)
        os.lseek(result_fd, 0, os.SEEK_SET)
        _write_all(result_fd, text.encode("utf-8", "surrogatepass"))

    def fail(kind: str, message: str) -> None:
        answer(json.dumps({"ok": False, "kind": kind, "error": message[:2000]}, ensure_ascii=False))

    import inspect  # before the hook: it is large and harmless

    _set_limits(request)
    workdir = os.path.realpath(request["workdir"])
    os.chdir(workdir)
    sys.dont_write_bytecode = True
    readable = readable_roots(workdir, request["tool_dir"])
    try:
        status = harden(new_netns=bool(request["new_netns"]), readable=(*readable, "/proc/self"),
                        writable_dirs=(workdir,))
    except (OSError, ImportError) as exc:  # fail closed: no tool code without the filter
        fail("unavailable", f"the sandbox could not isolate itself: {exc}")
        return
    evict_forbidden_modules()
    install_guard(workdir, readable)
    status["audit"] = True
    status_fd = request["status_fd"]
    _write_all(status_fd, json.dumps(status).encode("utf-8"))
    os.close(status_fd)  # written once, before the tool runs: the tool cannot forge it
    del status, request["status_fd"]
    _run_tool(request, answer, fail, inspect)


def _refusal_in(exc: BaseException, isinstance=isinstance, str=str, len=len,
                refusals=(PermissionError, ImportError), OSError=OSError) -> str | None:
    # (builtins bound at definition: a tool that rebinds them does not turn a refusal into a "server" error)
    seen = 0
    current: BaseException | None = exc
    while current is not None and seen < 20:
        if isinstance(current, refusals) and str(current).startswith(REFUSAL_MARK):
            return str(current)[len(REFUSAL_MARK):]
        if isinstance(current, OSError) and current.errno == errno.EPERM and current.filename is None:
            # The seccomp filter answers EPERM for process creation, sockets and the rest; nothing else a
            # tool does in here fails that way without a file name.
            return "an operation the kernel's system-call filter forbids (processes, sockets, debugging)"
        current = current.__cause__ or current.__context__
        seen += 1
    return None


def _run_tool(request: dict, answer, fail, inspect, isinstance=isinstance, type=type,
              str=str, MemoryError=MemoryError, OSError=OSError, SystemExit=SystemExit,
              BaseException=BaseException, callable=callable, getattr=getattr) -> None:
    def report(exc: BaseException, stage: str) -> None:
        refused = _refusal_in(exc)
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
        if _refusal_in(exc) is None and not isinstance(exc, MemoryError | SystemExit):
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


if __name__ == "__main__":
    main()
