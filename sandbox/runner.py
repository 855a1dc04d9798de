"""The evaluator runner: runs inside bubblewrap, standard library only.

Protocol (every frame is a 4-byte big-endian length followed by that many bytes of UTF-8 JSON):

* Node -> runner on stdin: one ``setup`` frame, then ``batch`` frames (items in order, each with
  its own id and nonce), then ``exit`` or EOF. Node writes a batch only after every result of the
  previous one arrived (it encodes the next batch while this one runs, but keeps it), so user code
  never finds a future batch or its nonces waiting on stdin.
* runner -> Node on the result descriptor: ``ready`` / ``setup_error`` (echoing the setup nonce),
  then one ``result`` per item, in order (echoing that item's id and nonce); ``fatal`` if the
  runner itself fails after setup (then it exits).

Descriptors. The runner first closes every descriptor but 0-3 (the worker may have inherited some
without close-on-exec, and bwrap passes them on). Until setup is done its diagnostics go to the
original stderr (a pipe to Node); then that pipe is closed, so while user code runs the result
channel is the only descriptor leading out of the sandbox. When the runner is done (EOF, ``exit``,
retirement) it leaves with ``os._exit``: no interpreter shutdown waits for threads user code left.

The result channel. Node opens the result pipe as fd 3. Before any user code exists the runner
moves it to a randomly numbered private descriptor (close-on-exec) and closes fd 3, so naive writes
to fd 3 or to stdout can never look like a result. Every frame must carry the nonce that Node
generated for that one item and Node accepts exactly one frame per item, for the item in flight;
anything else (bad framing, wrong nonce, wrong id, a second frame) makes Node kill the runner and
report ``invalid_result``. In warm mode user code shares the interpreter with the runner, so a
determined evaluator could dig the current item's nonce and descriptor out of memory; doing so only
lets it write the result of the item it is evaluating anyway (whose scores it controls), and Node
still validates that result. In strict mode each item runs in a child forked by a zygote process
that the runner forks before it reads any batch (see "strict mode" below): the child holds neither
the result descriptor nor any other item (nor freed memory that once held one); it gets its own
item over a pipe and reports over another to the runner, which checks and frames the result.

Each item runs the compiled template in a fresh module namespace (Score and EvaluationResult in its
globals) and re-executes the shared libraries, so module-level state does not carry over. A per-item
CPU budget (ITIMER_PROF) and wall budget (ITIMER_REAL) raise ItemTimeout in user code; RLIMIT_CPU
and Node's wall-clock SIGKILL are the backstops for code that never returns to the interpreter.
In warm mode the interpreter itself (builtins, sys, sys.modules, os.environ, import hooks, limits,
signal handlers) is put back before every item from a snapshot taken before the first
(interpreter_state.py), and oodle_eval's and the shims' modules are read-only in both modes.
"""

from __future__ import annotations

import builtins
import errno
import fcntl
import io
import json
import linecache
import os
import resource
import select
import signal
import _signal
import sys
import time
import traceback
import types

# This file's functions look builtins up in a private copy taken before any user code exists (a
# function keeps the builtins of its globals at definition): user code that replaces builtins.len
# cannot change what the runner's own code does after it, before builtins are put back.
__builtins__ = dict(builtins.__dict__)

RESULT_FD_NODE = 3
LIB_DIR = "/sandbox/lib"
SHIMS_DIR = "/sandbox/lib/sandbox_shims"
PACKAGES_DIR = "/sandbox/packages"  # the curated, read-only Debian packages (sandbox/packages.json)
SECCOMP_MODULE_DIR = "/sandbox/seccomp-module"
POLICY_DIR = "/sandbox/runner/seccomp"
TMP_DIR = "/tmp"
RUNNER_DIR = os.path.dirname(os.path.abspath(__file__))  # /sandbox/runner inside (interpreter_state.py)
USER_FILENAME = "<evaluator>"
MAX_FRAME_BYTES = 64 * 1024 * 1024
# True only when this file is the copy bound into the sandbox (bwrap-args.ts: INSIDE.runner).
IN_SANDBOX = os.path.realpath(__file__) == "/sandbox/runner/runner.py"
# Bounds of an error report, in UTF-16 code units (what Node's string length counts and checks:
# runner-process.ts errorSchema).
MAX_TYPE_CHARS = 200
MAX_MESSAGE_CHARS = 4000
MAX_TRACEBACK_CHARS = 20000
# What /tmp's own metadata is put back to whenever an item changed it (see Runner._clean_tmp).
TMP_MODE = 0o1777
TMP_TIME_NS = 0
# A strict child exits with this status when it cannot set its rlimits (before any user code).
CHILD_LIMITS_BROKEN = 72
OUTCOMES = ("ok", "user_error", "timeout", "memory_limit", "output_limit", "invalid_result", "sandbox_error")

# Bound now, before user code can monkeypatch the modules.
_dumps = json.dumps
_loads = json.loads
_os_read = os.read
_os_write = os.write
_os_fstat = os.fstat
_os_lseek = os.lseek
_os_chmod = os.chmod
_os_scandir = os.scandir
_os_unlink = os.unlink
_os_rmdir = os.rmdir
_os_utime = os.utime
_os_stat = os.stat
_os_statvfs = os.statvfs
_os_fstatvfs = os.fstatvfs
_os_listdir = os.listdir
_SEEK_END = os.SEEK_END
_ModuleType = types.ModuleType
MODULES_TAG = 2  # interpreter_state.MODULES: sys.modules's place in InterpreterState.tags
_setitimer = signal.setitimer
_getsignal = _signal.getsignal  # the raw handler, without signal's per-call enum conversion
_set_handler = _signal.signal
_cpu_time = time.process_time  # CPU of the whole process (all threads), as RLIMIT_CPU counts it
_monotonic = time.monotonic
_SIGPROF = int(signal.SIGPROF)
_SIGALRM = int(signal.SIGALRM)
_ITIMER_PROF = signal.ITIMER_PROF
_ITIMER_REAL = signal.ITIMER_REAL
_RLIMIT_CPU = resource.RLIMIT_CPU
_setrlimit = resource.setrlimit
_ALL_RLIMITS = tuple(getattr(resource, name) for name in sorted(dir(resource)) if name.startswith("RLIMIT_"))


def _tmp_state(st: os.stat_result) -> tuple[int, int, int, int, int]:
    """What the fast path of Runner._clean_tmp compares: /tmp's times (ns), size and mode."""
    return (st.st_mtime_ns, st.st_atime_ns, st.st_ctime_ns, st.st_size, st.st_mode)


def _cap(text: str, limit: int, tail: bool = False) -> str:
    """``text`` cut to at most ``limit`` UTF-16 code units (its start, or its end when ``tail``)."""
    if len(text) <= limit // 2 or (len(text) <= limit and text.isascii()):
        return text
    part = text[-limit:] if tail else text[:limit]
    units = part.encode("utf-16-le", "surrogatepass")
    if len(units) <= 2 * limit:
        return part
    units = units[-2 * limit:] if tail else units[: 2 * limit]
    return units.decode("utf-16-le", "ignore")  # drops a surrogate pair cut in half


def _safe_str(error: BaseException) -> str:
    """``str(error)``, or a placeholder when a user ``__str__`` raises."""
    try:
        return str(error)
    except BaseException:  # noqa: BLE001
        return "<unprintable>"


def _not_json(value):
    raise TypeError(f"Object of type {type(value).__name__} is not JSON serializable")


def _make_encode():
    """``json.dumps(message, ensure_ascii=False, allow_nan=False)`` without building a JSONEncoder
    per call: the C encoder when there is one (a fresh ``markers`` dict per call keeps the
    circular-reference check), else the pure-Python one."""
    import json.encoder as json_encoder  # noqa: PLC0415

    make, basestring = json_encoder.c_make_encoder, json_encoder.c_encode_basestring
    if make is None or basestring is None:
        return lambda message: _dumps(message, ensure_ascii=False, allow_nan=False)
    join = "".join
    return lambda message: join(make({}, _not_json, basestring, None, ": ", ", ", False, False, False)(message, 0))


_encode = _make_encode()


class ItemTimeout(BaseException):
    """Raised in user code when the item's CPU or wall budget is spent (BaseException: a bare
    ``except Exception`` in user code does not swallow it, and it is raised again every 100 ms)."""


class OutputLimit(BaseException):
    """Raised in user code when its captured stdout+stderr would pass the per-item cap."""


# --------------------------------------------------------------------------- framing


def read_exact(fd: int, n: int) -> bytes | None:
    """Read exactly ``n`` bytes from ``fd`` (1 MiB reads at most); None at EOF before ``n``."""
    chunks = []
    while n > 0:
        chunk = _os_read(fd, min(n, 1 << 20))
        if not chunk:
            return None
        chunks.append(chunk)
        n -= len(chunk)
    return b"".join(chunks)


def read_frame(fd: int) -> dict | None:
    """Read one frame (4-byte big-endian length, UTF-8 JSON); None at EOF.

    Raises ValueError for a length over MAX_FRAME_BYTES, and the decoder's error for bad JSON.
    """
    header = read_exact(fd, 4)
    if header is None:
        return None
    size = int.from_bytes(header, "big")
    if size > MAX_FRAME_BYTES:
        raise ValueError(f"frame of {size} bytes")
    body = read_exact(fd, size)
    if body is None:
        return None
    return _loads(body.decode("utf-8"))


def encode_frame(message: dict) -> bytes:
    """``message`` as one frame: its UTF-8 JSON preceded by the 4-byte big-endian length."""
    body = _encode(message).encode("utf-8")
    return len(body).to_bytes(4, "big") + body


def write_all(fd: int, data: bytes) -> None:
    """Write every byte of ``data`` to ``fd`` (retrying short writes); OSError propagates."""
    view = memoryview(data)
    while view:
        written = _os_write(fd, view)
        view = view[written:]


def write_frame(fd: int, message: dict) -> None:
    """Write ``message`` to ``fd`` as one frame (see encode_frame)."""
    write_all(fd, encode_frame(message))


# --------------------------------------------------------------------------- output capture


class Budget:
    """Bytes of output left for the current item, shared by stdout and stderr.

    Past the limit, output is dropped and the item goes on (its scores are kept, its output is
    marked truncated: see ``truncation_marker``); ``attempted`` counts every byte printed, and
    past ``FLOOD_FACTOR`` times the limit the item is a flood and stops as ``output_limit``.
    """

    def __init__(self, limit: int) -> None:
        self.left = limit
        self.exceeded = False
        self.attempted = 0
        self.limit = limit
        self.flooded = False


# Output beyond this many times the cap is a flood: the item stops with output_limit.
FLOOD_FACTOR = 16
# Room kept in the cap for the truncation marker (so the kept output + marker fit in outputBytes).
MARKER_RESERVE = 160


def name_memory_limit(result: dict, memory_bytes: int) -> None:
    """A MemoryError's message is usually empty: say which limit was hit."""
    error = result.get("error") or {}
    if memory_bytes and not error.get("message"):
        error["message"] = f"the evaluator used more than its memory limit of {memory_bytes // (1024 * 1024)} MiB"


def explain_network_error(result: dict, error: BaseException) -> None:
    """An OSError raised by a socket call says, before the raw OS error, that the sandbox has no network."""
    if not isinstance(error, OSError):
        return
    import socket as _socket  # stdlib; imported lazily (only on a failure)

    from_socket = isinstance(error, (_socket.gaierror, _socket.herror)) or any(
        frame.f_code.co_filename.endswith(("/socket.py", "/ssl.py", "/http/client.py", "/urllib/request.py")) for frame, _ in traceback.walk_tb(error.__traceback__)
    )
    if not from_socket:
        return
    details = result.get("error") or {}
    details["message"] = f"the sandbox has no network: evaluators cannot open sockets or resolve names ({details.get('message', '')})"[:MAX_MESSAGE_CHARS]


def truncation_marker(limit: int) -> str:
    """The line appended to stderr when an item printed more than its cap (docs/sandbox.md § Outcomes)."""
    return f"\n[oodle: output truncated: the item printed more than {limit} bytes of stdout and stderr; the rest was dropped]\n"


def note_output(budget: Budget, size: int) -> None:
    """Counts ``size`` bytes printed; raises OutputLimit once they pass FLOOD_FACTOR × the cap."""
    budget.attempted += size
    if budget.attempted > FLOOD_FACTOR * max(budget.limit, 1):
        budget.exceeded = True
        raise OutputLimit(f"output limit reached: the item printed more than {FLOOD_FACTOR} times its {budget.limit + MARKER_RESERVE} bytes")


class Capture(io.TextIOBase):
    """A text stream that keeps what user code prints, up to the item's output budget."""

    def __init__(self, budget: Budget) -> None:
        self.budget = budget
        self.parts: list[str] = []

    def writable(self) -> bool:
        return True

    def write(self, s: str) -> int:
        if not isinstance(s, str):
            raise TypeError(f"write() argument must be str, not {type(s).__name__}")
        size = len(s.encode("utf-8", "replace"))
        note_output(self.budget, size)
        if size > self.budget.left:
            # Keep what fits, drop the rest, and let the item finish (its scores are kept).
            keep = s.encode("utf-8", "replace")[: max(self.budget.left, 0)].decode("utf-8", "ignore")
            if keep:
                self.parts.append(keep)
            self.budget.left = 0
            self.budget.exceeded = True
            return len(s)
        self.budget.left -= size
        self.parts.append(s)
        return len(s)

    def text(self) -> str:
        return "".join(self.parts)


# --------------------------------------------------------------------------- shared libraries


class SharedLibraries:
    """A meta-path finder serving ``shared`` and ``shared.<name>`` from in-memory sources.

    Nothing is on disk, so user code cannot change a library. Each library is compiled once; its
    module is executed afresh for every item (``reset``). A library that imports a library it was
    not given, or that is part of an import cycle, raises ImportError naming it.
    """

    def __init__(self, sources: dict[str, str], imported_by) -> None:
        self.code: dict[str, types.CodeType] = {}
        self.loaded: list[str] = []
        self.files: set[str] = set()
        for name, source in sources.items():
            filename = f"<shared/{name}>"
            self.files.add(filename)
            linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
            self.code[name] = compile(source, filename, "exec")
        graph = {name: [d for d in imported_by(src) if d in sources] for name, src in sources.items()}
        self.cycles = _cycles(graph)

    def find_spec(self, fullname, path=None, target=None):
        import importlib.machinery

        if fullname == "shared":
            self.loaded.append("shared")
            spec = importlib.machinery.ModuleSpec("shared", self, is_package=True)
            spec.submodule_search_locations = []
            return spec
        if not fullname.startswith("shared."):
            return None
        name = fullname[len("shared."):]
        if "." in name:
            raise ImportError(f"shared library {name.split('.')[0]!r} has no submodule {name!r}", name=fullname)
        if name not in self.code:
            given = ", ".join(sorted(self.code)) or "none"
            raise ImportError(
                f"shared library {name!r} is not available to this evaluator (libraries given: {given})",
                name=fullname,
            )
        if name in self.cycles:
            raise ImportError(f"shared library {name!r} is part of an import cycle: {self.cycles[name]}", name=fullname)
        return importlib.machinery.ModuleSpec(fullname, self)

    def create_module(self, spec):
        return None

    def exec_module(self, module):
        if module.__name__ == "shared":
            module.__path__ = []
            return
        name = module.__name__[len("shared."):]
        module.__file__ = f"<shared/{name}>"
        self.loaded.append(module.__name__)
        exec(self.code[name], module.__dict__)

    def reset(self) -> None:
        """Forget the modules executed for the last item, so the next item executes them afresh."""
        if self.loaded:
            for key in self.loaded:
                sys.modules.pop(key, None)
            sys.modules.pop("shared", None)
            self.loaded.clear()


def _cycles(graph: dict[str, list[str]]) -> dict[str, str]:
    """{library: "a -> b -> a"} for every library on an import cycle."""
    found: dict[str, str] = {}

    def visit(node: str, stack: list[str]) -> None:
        if node in stack:
            cycle = stack[stack.index(node):] + [node]
            for member in cycle:
                found.setdefault(member, " -> ".join(cycle))
            return
        for dep in graph.get(node, []):
            visit(dep, stack + [node])

    for start in graph:
        visit(start, [])
    return found


# --------------------------------------------------------------------------- library modules


def guard_library_modules() -> None:
    """oodle_eval, the shims and this runner's own module refuse attribute writes from user code
    (interpreter_state.ReadOnlyModule): every item of a runner shares them. Those imported so far
    now, the others as they are imported (interpreter_state.GuardingFinder, first on sys.meta_path).
    Both modes, so code behaves the same in warm and strict mode."""
    sys.path.insert(0, RUNNER_DIR)
    try:
        import interpreter_state  # noqa: PLC0415
    finally:
        del sys.path[0]
    prefixes = (LIB_DIR + "/", RUNNER_DIR + "/")
    for name, module in list(sys.modules.items()):
        origin = getattr(getattr(module, "__spec__", None), "origin", None) or getattr(module, "__file__", None)
        if isinstance(origin, str) and os.path.abspath(origin).startswith(prefixes) and (IN_SANDBOX or name != "__main__"):
            interpreter_state.make_read_only(module)
    roots = {"oodle_eval"}
    if os.path.isdir(SHIMS_DIR):
        roots |= {name for name in os.listdir(SHIMS_DIR) if os.path.isfile(os.path.join(SHIMS_DIR, name, "__init__.py"))}
    sys.meta_path.insert(0, interpreter_state.GuardingFinder(frozenset(roots)))


# --------------------------------------------------------------------------- the runner


class Runner:
    """One sandboxed runner: the compiled template and libraries of its setup frame, run per item
    (warm: in this process; strict: in a child of the zygote), results framed on ``result_fd``."""

    def __init__(self, setup: dict, result_fd: int) -> None:
        self.result_fd = result_fd
        self.workspace_id = setup["workspaceId"]
        self.mode = setup["mode"]
        limits = setup["limits"]
        self.cpu_s = limits["cpuTimeMs"] / 1000
        self.wall_s = limits["wallTimeMs"] / 1000
        self.output_bytes = limits["outputBytes"]
        # A strict child's result is read into memory before it is parsed: bounded well below
        # RLIMIT_AS (100 scores of the largest valid size is ~2.7 MB, plus the item's output).
        self.max_child_result_bytes = 3 * 1024 * 1024 + 4 * self.output_bytes
        self.runner_cpu_s = limits["runnerCpuTimeMs"] / 1000
        self.timed_out = False
        self.armed = False
        self.retire = False
        self.zygote = None
        self.user_files = {USER_FILENAME}
        # (st_mtime_ns, st_atime_ns, st_ctime_ns, st_size, st_mode) of /tmp after the last cleaning
        self.tmp_state = (-1, -1, -1, -1, -1)
        self.tmp_fd = -1
        self.tmp_id = (-1, -1)
        self.cpu_soft = -1
        self.budget = Budget(0)
        self.captures = (Capture(self.budget), Capture(self.budget))
        self._handler = self._on_timer  # one bound method, so identity checks work
        self.raw_fds = (1, 1)  # private descriptors of the stdout/stderr memfds, set by main()
        self.state = None  # warm mode: the interpreter's snapshot, put back before every item (snapshot_state)

    # -- setup (trusted code only) ------------------------------------------------------------

    def apply_rlimits(self, limits: dict) -> None:
        def both(which: int, value: int) -> None:
            resource.setrlimit(which, (value, value))

        both(resource.RLIMIT_AS, limits["memoryBytes"])
        self.memory_bytes = limits["memoryBytes"]
        both(resource.RLIMIT_FSIZE, limits["tmpfsBytes"])
        both(resource.RLIMIT_NOFILE, limits["openFiles"])
        both(resource.RLIMIT_CORE, 0)
        both(resource.RLIMIT_NPROC, 64)
        # Each POSIX timer (timer_create) pins a queued signal of kernel memory: 40,000 held +15 MB of
        # slab in an idle runner under the inherited ~96,000. The runner itself needs one or two.
        both(resource.RLIMIT_SIGPENDING, 64)
        # The lifetime CPU of this runner; each item lowers the soft limit to its own budget.
        self.cpu_hard = int(self.runner_cpu_s) + 2
        both(resource.RLIMIT_CPU, self.cpu_hard)
        # Every limit as it stands now, set again by each strict child before user code.
        self.rlimits = [(which, resource.getrlimit(which)) for which in _ALL_RLIMITS]

    def load_seccomp(self) -> None:
        """Stack the runner filter (no execve) and, in warm mode, the user filter (no fork)."""
        sys.path.insert(0, SECCOMP_MODULE_DIR)
        sys.path.insert(0, POLICY_DIR)
        try:
            import policy  # noqa: PLC0415 -- sandbox/seccomp/policy.py, bound read-only

            policy.runner_filter().load()
            self.user_filter = policy.user_filter()
            if self.mode == "warm":
                self.user_filter.load()
        finally:
            del sys.path[:2]

    def prepare_library(self) -> None:
        """Import oodle_eval and the modules most evaluators use (trusted code)."""
        sys.path[:] = [LIB_DIR] + [p for p in sys.path if p.startswith("/usr/lib/python3.11")] + [PACKAGES_DIR, SHIMS_DIR]
        sys.dont_write_bytecode = True
        from oodle_eval.v1 import entrypoint, score  # noqa: PLC0415

        for optional in ("oodle_eval.v1.metrics", "oodle_eval.v1.text", "oodle_eval.v1.combine", "opik"):
            try:  # warm the import cache for the modules most evaluators use
                __import__(optional)
            except Exception:  # noqa: BLE001 -- reported when user code imports it
                pass
        guard_library_modules()
        self.entrypoint = entrypoint
        self.run_entry_point = entrypoint.run_entry_point
        self.namespace_template = entrypoint.make_namespace("__evaluator__", USER_FILENAME)
        self.ScoreError = score.ScoreError
        from oodle_eval.v1.context import make_context  # noqa: PLC0415

        self.make_context = make_context

    def prepare_code(self, setup: dict) -> None:
        """Compile the shared libraries and the template and find its entry point (user input)."""
        entrypoint = self.entrypoint
        self.shared = SharedLibraries(setup.get("libraries") or {}, entrypoint.imported_shared_libraries)
        self.user_files |= self.shared.files
        sys.meta_path.insert(0, self.shared)
        source = setup["source"]
        linecache.cache[USER_FILENAME] = (len(source), None, source.splitlines(True), USER_FILENAME)
        self.kind = entrypoint.detect_entry_point(source, USER_FILENAME)["kind"]
        self.code = compile(source, USER_FILENAME, "exec")

    # -- one item ---------------------------------------------------------------------------

    def _on_timer(self, signum, frame) -> None:
        if self.armed:
            self.timed_out = True
            raise ItemTimeout(
                f"the evaluator used more than its {'CPU' if signum == signal.SIGPROF else 'wall-clock'} "
                f"time of {self.cpu_s if signum == signal.SIGPROF else self.wall_s:g} s for one item"
            )

    def _arm(self) -> None:
        # User code may have replaced our handlers during the previous item: put them back.
        handler = self._handler
        if _getsignal(_SIGPROF) is not handler:
            _set_handler(_SIGPROF, handler)
        if _getsignal(_SIGALRM) is not handler:
            _set_handler(_SIGALRM, handler)
        self.timed_out = False
        self.armed = True
        _setitimer(_ITIMER_PROF, self.cpu_s, 0.1)
        _setitimer(_ITIMER_REAL, self.wall_s, 0.1)

    def _disarm(self) -> None:
        """Stop the timers raising (they are re-armed for the next item, or stopped by ``stop_timers``)."""
        self.armed = False

    def stop_timers(self) -> None:
        self.armed = False
        _setitimer(_ITIMER_PROF, 0)
        _setitimer(_ITIMER_REAL, 0)

    def open_tmp(self) -> None:
        """Keep a private descriptor of /tmp, so the check between items is an fstat rather than
        a path lookup. Only inside the sandbox, where /tmp is the runner's private tmpfs."""
        if not IN_SANDBOX:
            return
        fd = os.open(TMP_DIR, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
        self.tmp_fd = fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 80)
        os.close(fd)
        st = os.fstat(self.tmp_fd)
        self.tmp_id = (st.st_dev, st.st_ino)

    def _clean_tmp(self) -> bool:
        """Empty /tmp and put its own mode and times back when something changed it (one fstat
        when nothing did). Only inside the sandbox, where /tmp is the runner's private tmpfs: never
        on a host. (Extended attributes and inode flags, the other state on /tmp itself, cannot be
        set: the base seccomp filter refuses setxattr and friends and the flag-setting ioctls.)

        Modes are put back depth-first before anything is listed or removed (an item may leave
        /tmp at 0500 or a subdirectory at 000), nothing is skipped on error, and the result is
        verified: /tmp empty, mode 1777, and no inode in use on the tmpfs but /tmp's own (an
        unlinked file still open in a thread user code left also counts).

        Returns False when /tmp could not be brought back to that state: the caller retires the
        runner (strict mode is an isolation boundary between items, so it must never run another
        item on a /tmp that may carry data)."""
        if self.tmp_fd < 0:
            return True
        try:
            st = _os_fstat(self.tmp_fd)
            # (tmpfs counts a directory's entries in its size: a change within one clock tick shows.
            # ctime, which os.utime cannot put back, shows a file made and unlinked; the inode count
            # an unlinked file still held open even within one coarse clock tick of the last clean.)
            if _tmp_state(st) == self.tmp_state and (st.st_dev, st.st_ino) == self.tmp_id:
                vfs = _os_fstatvfs(self.tmp_fd)
                if vfs.f_files - vfs.f_ffree <= 1:
                    return True
        except OSError:
            pass  # user code closed or replaced the descriptor: look /tmp up by its path
        try:
            _os_chmod(TMP_DIR, 0o700)
            directories = [TMP_DIR]
            index = 0
            while index < len(directories):  # breadth-first listing, every directory opened up first
                with _os_scandir(directories[index]) as entries:
                    for entry in entries:
                        if entry.is_dir(follow_symlinks=False):
                            _os_chmod(entry.path, 0o700)
                            directories.append(entry.path)
                        else:
                            _os_unlink(entry.path)
                index += 1
            for path in reversed(directories[1:]):  # deepest first
                _os_rmdir(path)
            _os_chmod(TMP_DIR, TMP_MODE)
            # Verified before the times are put back: reading the directory sets its atime.
            vfs = _os_statvfs(TMP_DIR)
            clean = not _os_listdir(TMP_DIR) and vfs.f_files - vfs.f_ffree <= 1
            _os_utime(TMP_DIR, ns=(TMP_TIME_NS, TMP_TIME_NS))
            st = _os_stat(TMP_DIR)
            self.tmp_state = _tmp_state(st)
            try:
                same = _os_fstat(self.tmp_fd)
                ok = (same.st_dev, same.st_ino) == self.tmp_id
            except OSError:
                ok = False
            if not ok:  # put a descriptor of /tmp back on the private number
                fd = os.open(TMP_DIR, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
                os.dup2(fd, self.tmp_fd, inheritable=False)
                os.close(fd)
            clean = clean and (st.st_mode & 0o7777) == TMP_MODE
        except OSError:
            clean = False
        if not clean:
            self.tmp_state = (-1, -1, -1, -1, -1)  # look again next time (the runner is retiring anyway)
        return clean

    def _raw_output(self, fd: int, budget: Budget) -> str:
        """What was written straight to fd 1 or 2 (a memfd) during the item; then empty it."""
        size = _os_lseek(fd, 0, _SEEK_END)  # the memfd's size (cheaper than fstat; writes append anyway)
        if not size:
            return ""
        data = os.pread(fd, min(size, max(budget.left, 0) + 1), 0)
        os.ftruncate(fd, 0)
        os.lseek(fd, 0, os.SEEK_SET)
        budget.attempted += size
        if budget.attempted > FLOOD_FACTOR * max(budget.limit, 1):
            budget.flooded = True
        if len(data) > budget.left:
            budget.exceeded = True
            data = data[: max(budget.left, 0)]
        budget.left -= len(data)
        return data.decode("utf-8", "replace")

    def run_item(self, item: dict) -> dict:
        """Run one item in this process; returns outcome, scores, stdout, stderr, error."""
        budget = self.budget
        budget.limit = max(self.output_bytes - MARKER_RESERVE, 0)
        budget.left, budget.exceeded, budget.attempted, budget.flooded = budget.limit, False, 0, False
        out, err = self.captures
        out.parts.clear()
        err.parts.clear()
        # Warm: sys's streams are the captures for the runner's whole life (set once, before the
        # snapshot); strict child: set here. sys.modules's version tag, read once the item's module
        # is in, tells whether user code changed sys.modules (interpreter_state.py).
        modules_view = self.state.modules_view if self.state is not None else None
        mark = -1
        swap = sys.stdout is not out
        saved = sys.stdout, sys.stderr, sys.__stdout__, sys.__stderr__
        result: dict = {"outcome": "ok", "scores": [], "error": None}
        try:
            try:
                document = dict(item.get("document") or {})
                document["dependencies"] = item.get("dependencies")
                ctx = self.make_context(document, item.get("params") or {})
                module = _ModuleType("__evaluator__")
                module.__dict__.update(self.namespace_template)
                sys.modules["__evaluator__"] = module
                if swap:
                    sys.stdout, sys.stderr, sys.__stdout__, sys.__stderr__ = out, err, out, err
                if modules_view is not None:
                    mark = modules_view.value
                self._arm()
                exec(self.code, module.__dict__)
                notes: list = []
                scores = self.run_entry_point(module.__dict__, ctx, notes, self.kind)
                for note in notes:  # dropped Opik results: say why, with the item's stderr
                    err.write(f"oodle_eval: {note}\n")
            finally:
                self.armed = False
                if swap:
                    sys.stdout, sys.stderr, sys.__stdout__, sys.__stderr__ = saved
            result["scores"] = [s.to_dict() for s in scores]  # JSON-checked when framed
        except ItemTimeout as error:
            result = self._failure("timeout", error)
        except MemoryError as error:
            result = self._failure("memory_limit", error)
            name_memory_limit(result, getattr(self, "memory_bytes", 0))
            self.retire = True  # start the next item from a clean heap
        except OutputLimit as error:
            result = self._failure("output_limit", error)
        except self.ScoreError as error:
            result = self._failure("invalid_result", error)
        except BaseException as error:  # noqa: BLE001 -- anything user code raises is its error
            result = self._failure("user_error", error)
            explain_network_error(result, error)
        # Sticky flags win over what user code did with the exception.
        if self.timed_out and result["outcome"] != "timeout":
            result = self._failure("timeout", ItemTimeout("the evaluator used more than its time for one item"))
        raw_out = self._raw_output(self.raw_fds[0], budget)
        raw_err = self._raw_output(self.raw_fds[1], budget)
        if budget.flooded and result["outcome"] != "output_limit":
            result = self._failure("output_limit", OutputLimit(f"output limit reached: the item printed more than {FLOOD_FACTOR} times its cap"))
        result["stdout"] = out.text() + raw_out
        result["stderr"] = err.text() + raw_err
        if budget.exceeded and result["outcome"] != "output_limit":
            result["stderr"] += truncation_marker(self.output_bytes)
        same = modules_view is not None and modules_view.value == mark
        sys.modules.pop("__evaluator__", None)
        self.shared.reset()
        if modules_view is not None:  # clean again unless user code changed sys.modules too
            self.state.tags[MODULES_TAG] = modules_view.value if same else -1
        return result

    def _failure(self, outcome: str, error: BaseException) -> dict:
        return {"outcome": outcome, "scores": [], "error": self._error_of(error)}

    def _error_of(self, error: BaseException) -> dict:
        """type, message and a traceback limited to the user's own frames."""
        try:
            message = str(error)
        except Exception:  # noqa: BLE001 -- a user __str__ may raise
            message = "<unprintable exception>"
        frames = [(f, n) for f, n in traceback.walk_tb(error.__traceback__) if f.f_code.co_filename in self.user_files]
        try:
            stack = traceback.StackSummary.extract(iter(frames[-200:]), lookup_lines=True)
            lines = ["Traceback (most recent call last):\n"] if stack else []
            lines += stack.format()
            lines += traceback.format_exception_only(type(error), error)
            text = "".join(lines)
        except Exception:  # noqa: BLE001
            text = f"{type(error).__name__}: {message}\n"
        # The type is the exception class's __name__, chosen by user code: bounded like the rest.
        return {
            "type": _cap(type(error).__name__, MAX_TYPE_CHARS),
            "message": _cap(message, MAX_MESSAGE_CHARS),
            "traceback": _cap(text, MAX_TRACEBACK_CHARS, tail=True),
        }

    # -- strict mode ------------------------------------------------------------------------
    #
    # The runner (R) holds whole batches: documents, params and nonces of items still to run and
    # results not yet flushed, and freed memory keeps their bytes. A child forked from R would
    # inherit all of that, so R never forks item children itself. Before it reads any batch it
    # forks a zygote (Z) that never receives an item: for each item, R asks Z (over a socketpair)
    # for a child; Z makes the item's two pipes, forks the child, hands R the pipes' other ends
    # (SCM_RIGHTS) and reports the child's exit status once it has reaped it. R writes the item
    # to the child's item pipe and reads its result from the result pipe. So a child's memory is
    # Z's (setup only) plus its own item; it never holds the result descriptor, stdin, the
    # diagnostics pipe or the socket to R (closed before user code runs).

    def start_zygote(self) -> None:
        """Fork the zygote (strict mode; before the first batch is read)."""
        import socket  # noqa: PLC0415 -- strict mode only

        self._socket = socket
        r_end, z_end = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        r_end.set_inheritable(False)
        z_end.set_inheritable(False)
        pid = os.fork()
        if pid == 0:
            status = 0
            try:
                r_end.close()
                self._zygote_loop(z_end)
            except BaseException:  # noqa: BLE001
                status = 70
            os._exit(status)
        z_end.close()
        self.zygote = r_end
        self.zygote_pid = pid
        # R writes items to children's pipes: a child that died early must give EPIPE, not kill R.
        signal.signal(signal.SIGPIPE, signal.SIG_IGN)

    def _zygote_loop(self, sock) -> None:
        """Z: one child per request, reaped here; Z itself never sees an item."""
        os.close(self.result_fd)
        empty_r, empty_w = os.pipe()  # stdin: at EOF at once (no /dev is needed)
        os.close(empty_w)
        os.dup2(empty_r, 0)
        os.close(empty_r)
        send_fds = self._socket.send_fds
        while True:
            request = sock.recv(16)
            if not request:
                return  # the runner is gone
            try:
                # Each child's own stdout and stderr: unlinked files on the tmpfs, gone with the
                # child. A shared memfd let one child write into the next one's output after its
                # own was read back (from code that runs while its result is encoded).
                outputs = [os.open(TMP_DIR, os.O_TMPFILE | os.O_RDWR | os.O_CLOEXEC, 0o600) for _ in range(2)]
            except OSError:
                sock.send(b"E")  # the runner retires: sandbox_error, never run on shared output
                continue
            item_r, item_w = os.pipe()
            result_r, result_w = os.pipe()
            pid = os.fork()
            if pid == 0:
                self._child(sock, item_r, item_w, result_r, result_w, outputs)  # never returns
            for fd in outputs:
                os.close(fd)
            os.close(item_r)
            os.close(result_w)
            send_fds(sock, [b"P%d" % pid], [item_w, result_r])
            os.close(item_w)
            os.close(result_r)
            _, status = os.waitpid(pid, 0)
            sock.send(b"S%d" % status)

    def _child(self, sock, item_r: int, item_w: int, result_r: int, result_w: int, outputs: list[int]) -> None:
        """A strict child: read its one item, run it under the user filter, write its result."""
        status = 0
        try:
            sock.close()  # user code must never talk to R as if it were Z
            os.close(item_w)
            os.close(result_r)
            raw = []
            for fd, target, shared in zip(outputs, (1, 2), self.raw_fds):
                os.dup2(fd, target)
                os.close(shared)  # the memfd every child shared: none of it stays here
                raw.append(fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 3))  # (the old numbers are above RLIMIT_NOFILE)
                os.close(fd)
            self.raw_fds = (raw[0], raw[1])
            # Every rlimit set again from the values of setup: nothing an earlier item did to the
            # zygote's limits (it cannot: prlimit on another pid is refused) reaches this child.
            for which, value in self.rlimits:
                try:
                    resource.setrlimit(which, value)
                    if resource.getrlimit(which) != value:
                        raise ValueError(which)
                except (OSError, ValueError):
                    os._exit(CHILD_LIMITS_BROKEN)
            item = read_frame(item_r)
            os.close(item_r)
            if item is None:
                os._exit(71)
            cpu = int(self.cpu_s) + 1
            resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))
            self.user_filter.load()
            self.runner_cpu_s = float("inf")
            result = self.run_item(item)
            try:
                frame = encode_frame(result)
            except BaseException as error:  # noqa: BLE001 -- user objects run while encoding
                frame = encode_frame(self._synthetic("invalid_result", "InvalidResult", _cap(f"the result is not JSON: {type(error).__name__}: {_safe_str(error)}", MAX_MESSAGE_CHARS)))
            write_all(result_w, frame)
        except BaseException:  # noqa: BLE001
            status = 70
        os._exit(status)

    def _zygote_message(self, timeout_s: float) -> tuple[bytes, list[int]] | None:
        """The next message from Z and any descriptors with it: ``(b"", [])`` once Z is gone, None
        if it said nothing within ``timeout_s``."""
        sock = self.zygote
        poller = select.poll()
        poller.register(sock.fileno(), select.POLLIN)
        if not poller.poll(max(int(timeout_s * 1000), 0) + 1):
            return None
        try:
            message, fds, _, _ = self._socket.recv_fds(sock, 64, 2)
        except OSError:
            return (b"", [])
        return message, fds

    def _zygote_broken(self, pid: int | None) -> dict:
        """Z is gone or stuck (user code can signal it): this runner can run no more items."""
        self.retire = True
        if pid is not None:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        return self._synthetic("sandbox_error", "SandboxError", "the strict-mode runner lost its process factory; the item was not run")

    def run_item_forked(self, item: dict) -> dict:
        """Run one item in a fresh child forked by the zygote; the child sees only this item."""
        try:
            self.zygote.send(b"F")
        except OSError:
            return self._zygote_broken(None)
        reply = self._zygote_message(5.0)
        if not reply or not reply[0].startswith(b"P") or len(reply[1]) != 2:
            for fd in reply[1] if reply else ():
                os.close(fd)
            return self._zygote_broken(None)
        pid = int(reply[0][1:])
        item_w, read_end = reply[1]
        try:
            write_all(item_w, encode_frame(item))
        except OSError:
            pass  # the child is already gone: its exit status says why
        os.close(item_w)
        deadline_s = self.wall_s + 1.0
        data, too_big, timed_out = bytearray(), False, False
        poller = select.poll()
        poller.register(read_end, select.POLLIN)
        start = time.monotonic()
        while True:
            left = deadline_s - (time.monotonic() - start)
            if left <= 0:
                timed_out = True
                break
            if not poller.poll(int(left * 1000) + 1):
                continue
            chunk = os.read(read_end, 1 << 20)
            if not chunk:
                break
            data += chunk
            if len(data) > self.max_child_result_bytes:
                too_big = True
                break
        os.close(read_end)
        killed = timed_out or too_big
        if killed:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        # The exit status, once Z has reaped the child. A child that closed its result pipe early
        # and kept running is killed at the item's deadline.
        status_reply = self._zygote_message(2.0 if killed else max(deadline_s - (time.monotonic() - start), 0))
        if status_reply is None and not killed:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            timed_out = True
            status_reply = self._zygote_message(2.0)
        if not status_reply or not status_reply[0].startswith(b"S"):
            for fd in status_reply[1] if status_reply else ():
                os.close(fd)
            self._zygote_broken(pid)  # retires this runner; this item's result may still stand
            status = None
        else:
            status = int(status_reply[0][1:])
        if timed_out:
            return self._synthetic("timeout", "ItemTimeout", f"the evaluator did not finish within {self.wall_s:g} s")
        if too_big:
            return self._synthetic("invalid_result", "ResultTooLarge", "the result is too large")
        try:
            result = _loads(bytes(data[4:]).decode("utf-8")) if len(data) >= 4 else None
        except Exception as error:  # noqa: BLE001 -- bad JSON, or nesting deep enough for RecursionError
            return self._synthetic("invalid_result", "InvalidResult", f"the evaluator's process sent a result that cannot be read ({type(error).__name__})")
        if isinstance(result, dict) and result.get("outcome") in OUTCOMES:
            return self._from_child(result)
        if status is None:
            return self._synthetic("user_error", "ProcessExited", "the evaluator's process ended before returning a result")
        if os.WIFEXITED(status) and os.WEXITSTATUS(status) == CHILD_LIMITS_BROKEN:  # before user code ran
            self.retire = True
            return self._synthetic("sandbox_error", "SandboxError", "the strict-mode child could not set its resource limits; the item was not run")
        if os.WIFSIGNALED(status):
            sig = os.WTERMSIG(status)
            if sig in (signal.SIGXCPU, signal.SIGKILL):
                return self._synthetic("timeout", "ItemTimeout", f"the evaluator used more than its CPU time of {self.cpu_s:g} s")
            return self._synthetic("user_error", "ProcessKilled", f"the evaluator's process ended with signal {signal.Signals(sig).name}")
        return self._synthetic("user_error", "ProcessExited", f"the evaluator's process ended with exit code {os.WEXITSTATUS(status)} before returning a result")

    def _from_child(self, result: dict) -> dict:
        """A strict child's result, rebuilt from known fields (the child ran user code, which may
        have written its own frame): bounded error fields, strings where strings belong."""
        error = result.get("error")
        if error is not None:
            if not isinstance(error, dict) or not all(isinstance(error.get(k), str) for k in ("type", "message", "traceback")):
                return self._synthetic("invalid_result", "InvalidResult", "the evaluator's process sent a malformed result")
            error = {
                "type": _cap(error["type"], MAX_TYPE_CHARS),
                "message": _cap(error["message"], MAX_MESSAGE_CHARS),
                "traceback": _cap(error["traceback"], MAX_TRACEBACK_CHARS, tail=True),
            }
        out, err = result.get("stdout"), result.get("stderr")
        return {
            "outcome": result["outcome"],
            "scores": result.get("scores"),
            "stdout": out if isinstance(out, str) else "",
            "stderr": err if isinstance(err, str) else "",
            "error": error,
        }

    def _synthetic(self, outcome: str, kind: str, message: str) -> dict:
        return {"outcome": outcome, "scores": [], "stdout": "", "stderr": "", "error": {"type": kind, "message": message, "traceback": ""}}

    # -- loop -------------------------------------------------------------------------------

    def snapshot_state(self) -> None:
        """Warm mode: snapshot the interpreter once, before any item (see interpreter_state.py)."""
        sys.path.insert(0, RUNNER_DIR)
        try:
            import interpreter_state  # noqa: PLC0415 -- sandbox/interpreter_state.py, bound read-only
        finally:
            del sys.path[0]
        out, err = self.captures
        sys.stdout, sys.stderr, sys.__stdout__, sys.__stderr__ = out, err, out, err
        self.state = interpreter_state.InterpreterState(
            readonly_prefixes=(LIB_DIR + "/", RUNNER_DIR + "/"),
            import_prefixes=("/usr/lib/python3", PACKAGES_DIR + "/"),
            owned_signals=(_SIGPROF, _SIGALRM),
        )

    def serve(self) -> None:
        """Answer batches until EOF, ``exit`` or retirement: one result frame per item, in order.

        Frames are buffered and written together (at 64 KiB, every 20 ms and at the end of a batch):
        one write and one wake-up of Node per many items. If the runner dies with results still
        buffered, Node re-runs the unanswered items one per batch, so the item that killed it is
        found and gets its outcome.
        """
        monotonic = _monotonic
        pending: list[bytes] = []
        size = 0
        last_flush = monotonic()
        while not self.retire:
            message = read_frame(0)
            if message is None or message.get("type") != "batch":
                return
            items = message["items"]
            del message
            for index in range(len(items)):
                item = items[index]
                items[index] = None  # what has run is gone from memory the next item can reach
                nonce = item.pop("nonce")
                result = self.run_one(item)
                result["type"] = "result"
                result["id"] = item.get("id")
                result["nonce"] = nonce
                result["retire"] = self.retire
                try:
                    frame = encode_frame(result)
                except BaseException as error:  # noqa: BLE001 -- user objects (a dict subclass's items()) run while encoding
                    # Their code ran outside any item's budget: start the next item in a fresh runner.
                    self.retire = True
                    failure = self._synthetic("invalid_result", "InvalidResult", _cap(f"the result is not JSON: {type(error).__name__}: {_safe_str(error)}", MAX_MESSAGE_CHARS))
                    failure.update({"type": "result", "id": item.get("id"), "nonce": nonce, "retire": True})
                    frame = encode_frame(failure)
                pending.append(frame)
                size += len(frame)
                now = monotonic()
                if self.retire or index == len(items) - 1 or size >= 65536 or now - last_flush >= 0.02:
                    write_all(self.result_fd, b"".join(pending))
                    pending.clear()
                    size = 0
                    last_flush = now
                if self.retire:
                    return
            self.stop_timers()

    def run_one(self, item: dict) -> dict:
        if item.get("workspaceId") != self.workspace_id:
            return self._synthetic("sandbox_error", "WorkspaceMismatch", "this runner serves another workspace")
        if not self._clean_tmp():
            self.retire = True  # (after a thread user code left: warm items are one trust domain)
        if self.mode == "strict":
            result = self.run_item_forked(item)
            if not self._clean_tmp():
                self.retire = True  # the next item must not find anything of this one
            return result
        used_s = _cpu_time()
        if used_s + self.cpu_s + 1 > self.runner_cpu_s:
            # This runner has had its share of CPU: Node starts a fresh one. A fresh runner always
            # runs its first item (resolveLimits refuses limits that would retire it at once;
            # otherwise Node would start runners forever).
            self.retire = True
            if self.cpu_soft != -1:  # set by every item run so far: this runner has run one
                return self._synthetic("sandbox_error", "RunnerRetired", "the runner retired before this item")
        # Backstop for code that never returns to the interpreter: SIGXCPU 1-2 s past the budget
        # (whole seconds, so the call is skipped while the value does not change).
        soft = int(used_s + self.cpu_s) + 2
        if soft != self.cpu_soft:
            _setrlimit(_RLIMIT_CPU, (min(soft, self.cpu_hard), self.cpu_hard))
            self.cpu_soft = soft
        self.state.restore()  # what earlier items left in the interpreter (interpreter_state.py)
        result = self.run_item(item)
        if sys.modules.get("_thread") is not None and sys.modules["_thread"]._count() > 0:
            self.retire = True  # a thread left running would eat into later items' time
        if self.state.hooked[0]:
            self.retire = True  # an audit hook cannot be removed: it would see every later item
        if not self._clean_tmp():
            self.retire = True
        return result


def _close_inherited_fds() -> None:
    """Close every descriptor but stdio and the result pipe: whatever the worker inherited without
    close-on-exec (a supervisor's pipe, a log file) reaches bwrap and would reach user code."""
    _, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    top = hard if 0 < hard < (1 << 20) else (1 << 20)
    os.closerange(RESULT_FD_NODE + 1, top)


def _fatal_frame(error: BaseException) -> bytes:
    """Reports a failure of the runner itself (after setup) on the result channel; Node logs it.
    The diagnostics pipe is closed by then, and in warm mode user code could forge this frame like
    any other, so it is bounded like any error and ends the runner."""
    return encode_frame({"type": "fatal", "error": {
        "type": _cap(type(error).__name__, MAX_TYPE_CHARS),
        "message": _cap(str(error), MAX_MESSAGE_CHARS),
        "traceback": _cap("".join(traceback.format_exception(error)), MAX_TRACEBACK_CHARS, tail=True),
    }})


def main() -> None:
    """The runner's life: descriptors, setup frame, rlimits and seccomp, then serve batches (see module doc)."""
    _close_inherited_fds()
    # Move the result pipe out of the way: fd 3 closed, the channel on a random private fd.
    rand = int.from_bytes(os.urandom(2), "big")
    result_fd = fcntl.fcntl(RESULT_FD_NODE, fcntl.F_DUPFD_CLOEXEC, 10 + rand % 40)
    os.close(RESULT_FD_NODE)
    # fd 1 and 2 become memfds read back after each item, so output written around sys.stdout is
    # kept with the item that wrote it (and bounded by RLIMIT_FSIZE); until setup is done, the
    # runner's own diagnostics keep the original stderr (a pipe to Node) on a private descriptor.
    diag_fd = fcntl.fcntl(2, fcntl.F_DUPFD_CLOEXEC, 60)
    raw_fds = []
    for target, name in ((1, "stdout"), (2, "stderr")):
        mfd = os.memfd_create(name, 0)
        os.dup2(mfd, target)
        raw_fds.append(fcntl.fcntl(mfd, fcntl.F_DUPFD_CLOEXEC, 70))
        os.close(mfd)
    diag = open(diag_fd, "w", closefd=False)
    sys.stderr = diag
    setup = read_frame(0)
    if setup is None:
        return
    nonce = setup.pop("nonce")
    runner = Runner(setup, result_fd)
    runner.raw_fds = (raw_fds[0], raw_fds[1])
    try:
        runner.open_tmp()
        runner.apply_rlimits(setup["limits"])
        runner.load_seccomp()
        runner.prepare_library()
    except BaseException as error:  # noqa: BLE001 -- the sandbox itself is broken: fail closed
        traceback.print_exc()
        write_frame(result_fd, {"type": "setup_error", "nonce": nonce, "fault": "sandbox",
                                "error": {"type": _cap(type(error).__name__, MAX_TYPE_CHARS),
                                          "message": _cap(str(error), MAX_MESSAGE_CHARS), "traceback": ""}})
        return
    try:
        runner.prepare_code(setup)
    except BaseException as error:  # noqa: BLE001 -- template or library does not compile
        detail = runner._error_of(error)
        if getattr(error, "line", None):
            detail["traceback"] = _cap(str(error) + "\n", MAX_TRACEBACK_CHARS, tail=True)
        write_frame(result_fd, {"type": "setup_error", "nonce": nonce, "fault": "user", "error": detail})
        return
    # Setup is over: from here on no descriptor leads to Node but the result channel (user code
    # could find the diagnostics pipe through gc and write into the worker's log). Later failures
    # of the runner are reported on the result channel (``fatal``).
    diag.close()
    os.close(diag_fd)
    sys.stderr = sys.__stderr__
    del diag, diag_fd
    try:
        if runner.mode == "strict":
            runner.start_zygote()  # before any batch exists in this process
        else:
            runner.snapshot_state()
    except BaseException as error:  # noqa: BLE001
        write_frame(result_fd, {"type": "setup_error", "nonce": nonce, "fault": "sandbox",
                                "error": {"type": _cap(type(error).__name__, MAX_TYPE_CHARS),
                                          "message": _cap(str(error), MAX_MESSAGE_CHARS), "traceback": ""}})
        return
    write_frame(result_fd, {"type": "ready", "nonce": nonce, "kind": runner.kind})
    del setup, nonce
    try:
        runner.serve()
    except BrokenPipeError:
        raise
    except BaseException as error:  # noqa: BLE001
        write_all(result_fd, _fatal_frame(error))


if __name__ == "__main__":
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    try:
        main()
    except BrokenPipeError:
        pass
    # No interpreter shutdown: it would wait for threads user code left running (a retiring
    # runner must be gone at once) and run atexit hooks user code registered.
    os._exit(0)
