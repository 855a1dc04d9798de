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

This file is the entry point; its parts sit beside it and are imported before any user code exists
(read-only like this module: guard_library_modules): runner_protocol.py (frames, outcomes),
runner_errors.py (bounded error reports), runner_output.py (output budget and capture),
runner_shared.py (shared libraries), runner_strict.py (strict mode's zygote and children).
"""

from __future__ import annotations

import builtins
import errno
import fcntl
import linecache
import os
import resource
import signal
import _signal
import sys
import time
import traceback
import types

RUNNER_DIR = os.path.dirname(os.path.abspath(__file__))  # /sandbox/runner inside (interpreter_state.py)
# The runner's own modules, beside this file (python3.11 -I leaves this directory off sys.path).
# Imported now, before any user code exists, and made read-only with this module
# (guard_library_modules).
sys.path.insert(0, RUNNER_DIR)
try:
    from runner_errors import MAX_MESSAGE_CHARS, MAX_TRACEBACK_CHARS, MAX_TYPE_CHARS, cap, explain_network_error, name_memory_limit, safe_str
    from runner_output import FLOOD_FACTOR, MARKER_RESERVE, Budget, Capture, OutputLimit, raw_output, truncation_marker
    from runner_protocol import _not_json, encode_frame, read_frame, write_all, write_frame
    from runner_shared import SharedLibraries
    from runner_strict import StrictMode
finally:
    del sys.path[0]

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
USER_FILENAME = "<evaluator>"
# True only when this file is the copy bound into the sandbox (bwrap-args.ts: INSIDE.runner).
IN_SANDBOX = os.path.realpath(__file__) == "/sandbox/runner/runner.py"
# What /tmp's own metadata is put back to whenever an item changed it (see Runner._clean_tmp).
TMP_MODE = 0o1777
TMP_TIME_NS = 0

# Bound now, before user code can monkeypatch the modules.
_os_fstat = os.fstat
_os_chmod = os.chmod
_os_scandir = os.scandir
_os_unlink = os.unlink
_os_rmdir = os.rmdir
_os_utime = os.utime
_os_stat = os.stat
_os_statvfs = os.statvfs
_os_fstatvfs = os.fstatvfs
_os_listdir = os.listdir
_os_write = os.write
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


# The runner's own modules beside this file (RunnerGuard watches them and this one in warm mode).
RUNNER_MODULES = ("runner_protocol", "runner_output", "runner_errors", "runner_shared", "runner_strict", "interpreter_state")


def _tmp_state(st: os.stat_result) -> tuple[int, int, int, int, int]:
    """What the fast path of Runner._clean_tmp compares: /tmp's times (ns), size and mode."""
    return (st.st_mtime_ns, st.st_atime_ns, st.st_ctime_ns, st.st_size, st.st_mode)



class ItemTimeout(BaseException):
    """Raised in user code when the item's CPU or wall budget is spent (BaseException: a bare
    ``except Exception`` in user code does not swallow it, and it is raised again every 100 ms)."""



# --------------------------------------------------------------------------- library modules


def guard_library_modules() -> None:
    """oodle_eval, the shims and this runner's own modules refuse attribute writes from user code
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


class Runner(StrictMode):
    """One sandboxed runner: the compiled template and libraries of its setup frame, run per item
    (warm: in this process; strict: in a child of the zygote), results framed on ``result_fd``."""

    # What the runner itself changes while items run: slots, so its instance dict stays as setup
    # left it (warm mode watches it: RunnerGuard). Each is set again before every item or only
    # ever set to True.
    __slots__ = ("timed_out", "armed", "retire", "cpu_soft", "tmp_state")

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
        self.guard = None  # warm mode: the runner's own modules and objects, checked around every item

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
        raw_out = raw_output(self.raw_fds[0], budget)
        raw_err = raw_output(self.raw_fds[1], budget)
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
            "type": cap(type(error).__name__, MAX_TYPE_CHARS),
            "message": cap(message, MAX_MESSAGE_CHARS),
            "traceback": cap(text, MAX_TRACEBACK_CHARS, tail=True),
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
        add_audit_hook = sys.addaudithook  # the original: InterpreterState wraps it to note user hooks
        self.state = interpreter_state.InterpreterState(
            readonly_prefixes=(LIB_DIR + "/", RUNNER_DIR + "/"),
            import_prefixes=("/usr/lib/python3", PACKAGES_DIR + "/"),
            owned_signals=(_SIGPROF, _SIGALRM),
        )
        # Last: everything the runner sets up is in place, and no user code has run yet.
        own = [sys.modules[__name__]] + [sys.modules[name] for name in RUNNER_MODULES]
        guard = interpreter_state.RunnerGuard(tuple(own), (
            ("the runner", self),
            ("the interpreter snapshot", self.state),
            ("sys.stdout's capture", out),
            ("sys.stderr's capture", err),
            ("the shared-library finder", self.shared),
            ("the shared libraries' code", self.shared.code),
            ("the shared libraries' import cycles", self.shared.cycles),
            ("the item namespace template", self.namespace_template),
        ), add_audit_hook)
        self.guard = guard
        guard.rebase()  # the runner's dict now holds the guard itself

    def serve(self) -> None:
        """Answer batches until EOF, ``exit`` or retirement: one result frame per item, in order.

        Frames are buffered and written together (at 64 KiB, every 20 ms and at the end of a batch):
        one write and one wake-up of Node per many items. If the runner dies with results still
        buffered, Node re-runs the unanswered items one per batch, so the item that killed it is
        found and gets its outcome.

        Warm mode: the runner's own modules and objects are checked (``RunnerGuard``) before each
        item and again before its result frame is written. Changed before an item (by code of an
        earlier one, e.g. a finalizer): the item is not run (``RunnerRetired``, Node runs it on a
        fresh runner). Changed by the item itself: its result is ``user_error`` ``RunnerTampered``
        naming what changed (or, when only gc was walked or a library module changed, its own
        result stands); the runner retires either way.
        """
        # Result frames are encoded and written with what this frame binds here, before any user
        # code exists: C callables in locals, which user code cannot rebind (runner_protocol's
        # _encode, its functions' __code__ and closure cells it could; the guard notes those).
        import json.encoder as json_encoder  # noqa: PLC0415

        make_encoder, encode_string, not_json = json_encoder.c_make_encoder, json_encoder.c_encode_basestring, _not_json
        if make_encoder is None or encode_string is None:  # a Python without _json: runner_protocol's (unguarded)
            make_encoder = None
        join, join_bytes, utf8, to_bytes, length, memview = "".join, b"".join, str.encode, int.to_bytes, len, memoryview
        os_write, result_fd, monotonic = _os_write, self.result_fd, _monotonic
        check = self.guard.check if self.guard is not None else None
        check_before = self.guard.check_before if self.guard is not None else None
        retire_suffix, retiring_suffix = b', "retire": false}', b', "retire": true}'
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
                tampered = check_before() if check_before is not None else None
                if tampered is not None:  # by an earlier item's code: this one goes to a fresh runner
                    result = {"outcome": "sandbox_error", "scores": [], "stdout": "", "stderr": "", "error": {
                        "type": "RunnerRetired", "message": "the runner retired before this item: an earlier item changed its state (" + "; ".join(tampered.what)[:3000] + ")", "traceback": ""}}
                else:
                    result = self.run_one(item)
                result["type"] = "result"
                result["id"] = item.get("id")
                result["nonce"] = nonce
                result["retire"] = self.retire or tampered is not None
                try:
                    if make_encoder is None:
                        frame = encode_frame(result)
                    else:
                        body = utf8(join(make_encoder({}, not_json, encode_string, None, ": ", ", ", False, False, False)(result, 0)), "utf-8")
                        frame = to_bytes(length(body), 4, "big") + body
                except BaseException as error:  # noqa: BLE001 -- user objects (a dict subclass's items()) run while encoding
                    # Their code ran outside any item's budget: start the next item in a fresh runner.
                    self.retire = True
                    failure = self._synthetic("invalid_result", "InvalidResult", cap(f"the result is not JSON: {type(error).__name__}: {safe_str(error)}", MAX_MESSAGE_CHARS))
                    failure.update({"type": "result", "id": item.get("id"), "nonce": nonce, "retire": True})
                    frame = encode_frame(failure) if make_encoder is None else None
                    if frame is None:
                        body = utf8(join(make_encoder({}, not_json, encode_string, None, ": ", ", ", False, False, False)(failure, 0)), "utf-8")
                        frame = to_bytes(length(body), 4, "big") + body
                if check is not None and tampered is None:
                    # After the item and its encoding (user code runs in both): nothing it changed
                    # may reach this frame, nor a later item.
                    tampered = check()
                    if tampered is not None and not tampered.severe and frame.endswith(retiring_suffix):
                        pass  # its own result stands, and says the runner retires already
                    elif tampered is not None and not tampered.severe and frame.endswith(retire_suffix):
                        body = frame[4:-length(retire_suffix)] + retiring_suffix  # its own result stands
                        frame = to_bytes(length(body), 4, "big") + body
                    elif tampered is not None:
                        what = "; ".join(tampered.what)[:3000]
                        result = {"outcome": "user_error", "scores": [], "stdout": "", "stderr": "", "error": {
                            "type": "RunnerTampered",
                            "message": f"the evaluator changed the sandbox runner's own state, which every later item of this runner would share ({what}); the runner is replaced",
                            "traceback": ""}, "type": "result", "id": item.get("id"), "nonce": nonce, "retire": True}
                        if make_encoder is None:
                            frame = encode_frame(result)
                        else:
                            body = utf8(join(make_encoder({}, not_json, encode_string, None, ": ", ", ", False, False, False)(result, 0)), "utf-8")
                            frame = to_bytes(length(body), 4, "big") + body
                retiring = self.retire or tampered is not None
                pending.append(frame)
                size += length(frame)
                now = monotonic()
                if retiring or index == length(items) - 1 or size >= 65536 or now - last_flush >= 0.02:
                    view = memview(join_bytes(pending))
                    while view:
                        view = view[os_write(result_fd, view):]
                    pending.clear()
                    size = 0
                    last_flush = now
                if retiring:
                    self.retire = True
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
        "type": cap(type(error).__name__, MAX_TYPE_CHARS),
        "message": cap(str(error), MAX_MESSAGE_CHARS),
        "traceback": cap("".join(traceback.format_exception(error)), MAX_TRACEBACK_CHARS, tail=True),
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
                                "error": {"type": cap(type(error).__name__, MAX_TYPE_CHARS),
                                          "message": cap(str(error), MAX_MESSAGE_CHARS), "traceback": ""}})
        return
    try:
        runner.prepare_code(setup)
    except BaseException as error:  # noqa: BLE001 -- template or library does not compile
        detail = runner._error_of(error)
        if getattr(error, "line", None):
            detail["traceback"] = cap(str(error) + "\n", MAX_TRACEBACK_CHARS, tail=True)
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
                                "error": {"type": cap(type(error).__name__, MAX_TYPE_CHARS),
                                          "message": cap(str(error), MAX_MESSAGE_CHARS), "traceback": ""}})
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
