"""Strict mode: every item runs in a fresh child forked by a zygote process, so the child holds
no other item, nor the result descriptor (runner.py's module doc). A mixin of runner.py's Runner,
whose state (limits, rlimits, user filter, output descriptors) and ``run_item`` it uses.
Standard library only.

The runner (R) holds whole batches: documents, params and nonces of items still to run and
results not yet flushed, and freed memory keeps their bytes. A child forked from R would
inherit all of that, so R never forks item children itself. Before it reads any batch it
forks a zygote (Z) that never receives an item: for each item, R asks Z (over a socketpair)
for a child; Z makes the item's two pipes, forks the child, hands R the pipes' other ends
(SCM_RIGHTS) and reports the child's exit status once it has reaped it. R writes the item
to the child's item pipe and reads its result from the result pipe. So a child's memory is
Z's (setup only) plus its own item; it never holds the result descriptor, stdin, the
diagnostics pipe or the socket to R (closed before user code runs).
"""

from __future__ import annotations

import builtins
import fcntl
import json
import os
import resource
import select
import signal
import time

from runner_errors import MAX_MESSAGE_CHARS, MAX_TRACEBACK_CHARS, MAX_TYPE_CHARS, cap, safe_str
from runner_protocol import OUTCOMES, encode_frame, read_frame, write_all

# This file's functions look builtins up in a private copy taken before any user code exists (a
# function keeps the builtins of its globals at definition): user code that replaces builtins.len
# cannot change what the runner's own code does after it, before builtins are put back.
__builtins__ = dict(builtins.__dict__)

TMP_DIR = "/tmp"
# A strict child exits with this status when it cannot set its rlimits (before any user code).
CHILD_LIMITS_BROKEN = 72

# Bound now, before user code can monkeypatch the modules.
_loads = json.loads


class StrictMode:
    """The strict-mode methods of runner.py's Runner: the zygote, its children and their results."""

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
                frame = encode_frame(self._synthetic("invalid_result", "InvalidResult", cap(f"the result is not JSON: {type(error).__name__}: {safe_str(error)}", MAX_MESSAGE_CHARS)))
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
                "type": cap(error["type"], MAX_TYPE_CHARS),
                "message": cap(error["message"], MAX_MESSAGE_CHARS),
                "traceback": cap(error["traceback"], MAX_TRACEBACK_CHARS, tail=True),
            }
        out, err = result.get("stdout"), result.get("stderr")
        return {
            "outcome": result["outcome"],
            "scores": result.get("scores"),
            "stdout": out if isinstance(out, str) else "",
            "stderr": err if isinstance(err, str) else "",
            "error": error,
        }
