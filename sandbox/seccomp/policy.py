"""Seccomp policy of the evaluator sandbox: the reviewed source of every filter.

Three filters stack (the kernel runs every loaded filter and the strictest answer wins; a filter
can never be removed or loosened once loaded):

* ``base``   -- compiled to ``base.<arch>.bpf`` by build.sh and loaded by ``bwrap --seccomp FD``
  just before Python starts, so it covers the runner and everything it ever runs. It is
  **default-deny**: only the system calls in ``ALLOWED`` (grouped by what CPython, glibc and the
  runner use them for) are allowed, a few more only with the arguments in ``CONDITIONAL``; every
  other number, including every syscall added to Linux after this list was reviewed (``statmount``,
  ``listmount``, ``file_setattr``, ...), fails with EPERM. Left out on purpose, among others:
  network sockets (only AF_UNIX), ptrace and cross-process memory (``process_vm_*``,
  ``process_madvise``, ``pidfd_*``, ``kcmp``), mount and namespaces, bpf, io_uring and Linux AIO
  (``io_setup`` reserves host-wide ``fs.aio-max-nr``), the keyring, perf, userfaultfd, modules,
  kexec, clocks and host settings, handle-based opens, System V IPC and POSIX message queues
  (memory outside RLIMIT_AS that outlives the process), file locks (``flock``, fcntl's F_*LK: ENOLCK,
  a channel between boxes through the host files they all bind), inotify/fanotify (per-host-user
  counters), setting extended attributes, NUMA placement (``mbind``, ``migrate_pages``,
  ``move_pages``), ``personality``, ``mlock``, ``sync``, ``sysinfo`` (host-wide load, free RAM and
  process count -- a channel; glibc's qsort then assumes ample memory), ``mknod``, and every
  set*id call. ioctl and fcntl are allowed for a short list of requests (no TIOCSTI, no inode-flag setters, no
  F_SETPIPE_SZ, which charges pipe pages to the host user); resource and scheduling calls only on
  the caller itself (pid 0).
* ``runner`` -- loaded by runner.py itself once its interpreter is up: no execve/execveat (the
  runner never starts a program, so neither can anything running after it) and no memfd_create /
  memfd_secret (a memfd is RAM outside RLIMIT_AS and /tmp's size; the runner makes its two output
  memfds before it loads this filter).
* ``user``   -- loaded before user code runs: no new processes (fork, vfork, clone without
  CLONE_THREAD; clone3 answers ENOSYS so glibc falls back to clone, whose flags are visible).
  In warm mode the runner loads it on itself before the first item; in strict mode the runner
  keeps the right to fork and each forked child loads it before it touches user code.

Denied calls fail with EPERM (ENOSYS for clone3) rather than killing the process, so user code sees
an ordinary OSError and the runner can report it. A syscall of another architecture (int 0x80,
x32) is refused by libseccomp's bad-architecture action, which kills the process.

Only the standard library and python3-seccomp (Debian) are used.
"""

from __future__ import annotations

import errno

import seccomp

AF_UNIX = 1
CLONE_THREAD = 0x00010000
# CLONE_NEWNS, NEWCGROUP, NEWUTS, NEWIPC, NEWUSER, NEWPID, NEWNET, NEWTIME (CLONE_NEWTIME is only
# meaningful to clone3, listed for completeness).
CLONE_NEW_FLAGS = (0x00020000, 0x02000000, 0x04000000, 0x08000000, 0x10000000, 0x20000000, 0x40000000, 0x00000080)
TIOCSTI = 0x5412
F_SETPIPE_SZ = 1031
# Inode flag and attribute setters (tmpfs keeps FS_NODUMP_FL and FS_NOATIME_FL, settable by the
# owner: bits on /tmp itself that emptying /tmp does not clear). <linux/fs.h>:
# FS_IOC_SETFLAGS _IOW('f', 2, long), FS_IOC32_SETFLAGS _IOW('f', 2, int),
# FS_IOC_SETVERSION _IOW('v', 2, long), FS_IOC32_SETVERSION _IOW('v', 2, int),
# FS_IOC_FSSETXATTR _IOW('X', 32, struct fsxattr).
FLAG_SETTING_IOCTLS = (0x40086602, 0x40046602, 0x40087602, 0x40047602, 0x401C5820)
# Resource and scheduling calls whose first argument is a pid: only 0 (the caller) is allowed.
# (prlimit on the strict zygote's pid lowered the limits every later child inherited.)
PID_FIRST = ("prlimit64", "sched_setaffinity", "sched_setscheduler", "sched_setparam", "sched_setattr")
PRIO_PROCESS = 0
IOPRIO_WHO_PROCESS = 1

# The base filter's allow list, reviewed against x86_64's table up to number 450
# (set_mempolicy_home_node, Linux 6.7); anything not named here is refused.
ALLOWED = (
    # descriptors and file I/O
    "read", "write", "readv", "writev", "pread64", "pwrite64", "preadv", "pwritev", "preadv2",
    "pwritev2", "lseek", "close", "close_range", "dup", "dup2", "dup3", "sendfile",
    "copy_file_range", "splice", "tee", "fsync", "fdatasync", "fadvise64", "readahead",
    "ftruncate", "truncate", "fallocate",
    # paths (the filesystem is read-only but /tmp; bwrap decides what exists)
    "open", "openat", "openat2", "creat", "stat", "fstat", "lstat", "newfstatat", "statx",
    "access", "faccessat", "faccessat2", "readlink", "readlinkat", "getdents", "getdents64",
    "getcwd", "chdir", "fchdir", "mkdir", "mkdirat", "rmdir", "unlink", "unlinkat", "rename",
    "renameat", "renameat2", "link", "linkat", "symlink", "symlinkat", "chmod", "fchmod",
    "fchmodat", "chown", "fchown", "lchown", "fchownat", "umask", "utime", "utimes", "utimensat",
    "futimesat", "statfs", "fstatfs", "getxattr", "lgetxattr", "fgetxattr", "listxattr",
    "llistxattr", "flistxattr",
    # memory (memfd_create only until the runner filter is loaded)
    "brk", "mmap", "munmap", "mprotect", "mremap", "madvise", "msync", "mincore", "membarrier",
    "memfd_create",
    # processes and threads (fork, vfork and execve are taken away again by the runner and user
    # filters; bwrap needs execve to start python)
    "fork", "vfork", "execve", "exit", "exit_group", "wait4", "waitid", "set_tid_address",
    "set_robust_list", "get_robust_list", "rseq", "futex", "futex_waitv", "getpid", "getppid",
    "gettid", "getpgrp", "getpgid", "getsid", "setsid", "setpgid", "sched_yield",
    "sched_getaffinity", "sched_getparam", "sched_getscheduler", "sched_get_priority_max",
    "sched_get_priority_min", "sched_rr_get_interval", "sched_getattr", "getpriority", "ioprio_get",
    "getrlimit", "setrlimit", "getrusage", "times", "uname", "prctl", "arch_prctl",
    "capget", "getuid", "geteuid", "getgid", "getegid", "getresuid", "getresgid", "getgroups",
    "getcpu", "seccomp", "getrandom", "restart_syscall",
    # signals and timers (signals reach only the sandbox's own PID namespace)
    "rt_sigaction", "rt_sigprocmask", "rt_sigreturn", "rt_sigpending", "rt_sigtimedwait",
    "rt_sigsuspend", "rt_sigqueueinfo", "rt_tgsigqueueinfo", "sigaltstack", "kill", "tkill",
    "tgkill", "pause", "alarm", "getitimer", "setitimer", "timer_create", "timer_settime",
    "timer_gettime", "timer_getoverrun", "timer_delete", "signalfd", "signalfd4", "nanosleep",
    "clock_nanosleep", "clock_gettime", "clock_getres", "gettimeofday", "time",
    # waiting on descriptors
    "poll", "ppoll", "select", "pselect6", "epoll_create", "epoll_create1", "epoll_ctl",
    "epoll_wait", "epoll_pwait", "epoll_pwait2", "eventfd", "eventfd2", "timerfd_create",
    "timerfd_settime", "timerfd_gettime",
    # pipes and AF_UNIX sockets (socket() itself is in CONDITIONAL)
    "pipe", "pipe2", "connect", "bind", "listen", "accept", "accept4", "sendto", "recvfrom",
    "sendmsg", "recvmsg", "sendmmsg", "recvmmsg", "shutdown", "getsockname", "getpeername",
    "setsockopt", "getsockopt",
)

# ioctl requests allowed (the kernel reads the request as 32 bits: compared masked): isatty
# (TCGETS), terminal size and process group, FIONREAD, non-blocking and close-on-exec (CPython
# sets both with ioctl), and reading inode flags/attributes.
ALLOWED_IOCTLS = (0x5401, 0x5413, 0x540F, 0x541B, 0x5421, 0x5450, 0x5451, 0x80086601, 0x80046601, 0x801C581F)
# fcntl commands allowed: F_DUPFD, F_GETFD, F_SETFD, F_GETFL, F_SETFL, F_GETOWN, F_DUPFD_CLOEXEC,
# F_GETPIPE_SZ, F_ADD_SEALS, F_GET_SEALS. (Not F_SETPIPE_SZ, leases, F_NOTIFY, F_SETOWN/F_SETSIG,
# nor any lock: see LOCK_FCNTLS.)
ALLOWED_FCNTLS = (0, 1, 2, 3, 4, 9, 1030, 1032, 1033, 1034)
# File locks answer ENOLCK ("no locks available", which callers handle) rather than EPERM: every box
# binds the same read-only host files, and a lock on one (F_SETLK works on a read-only descriptor)
# is seen by F_GETLK in every other box -- a channel between workspaces without network -- and each
# lock is unreclaimable kernel memory (174,000 locks held +32 MB of slab in an idle warm runner).
# F_GETLK, F_SETLK, F_SETLKW, F_OFD_GETLK, F_OFD_SETLK, F_OFD_SETLKW; and the flock syscall.
LOCK_FCNTLS = (5, 6, 7, 36, 37, 38)
# clone flags that make a namespace: a clone with any of them is refused.
CLONE_NEW_MASK = 0
for _flag in CLONE_NEW_FLAGS:
    CLONE_NEW_MASK |= _flag

RUNNER_DENIED = ("execve", "execveat", "memfd_create", "memfd_secret")
USER_DENIED = ("fork", "vfork")


def _eperm() -> int:
    return seccomp.ERRNO(errno.EPERM)


def base_filter() -> seccomp.SyscallFilter:
    """The filter that bwrap loads for the whole sandbox (see the module docstring): default-deny."""
    f = seccomp.SyscallFilter(defaction=_eperm())
    # A binary search over syscall numbers instead of a linear chain: every allowed call (the
    # warm runner's per-item setitimer, fstat, lseek and write) pays log2(~200) comparisons.
    f.set_attr(seccomp.Attr.CTL_OPTIMIZE, 2)
    for name in ALLOWED:
        f.add_rule(seccomp.ALLOW, name)
    # The kernel reads ioctl's request and fcntl's command as 32 bits: compare only those.
    for request in ALLOWED_IOCTLS:
        f.add_rule(seccomp.ALLOW, "ioctl", seccomp.Arg(1, seccomp.MASKED_EQ, 0xFFFFFFFF, request))
    for command in ALLOWED_FCNTLS:
        f.add_rule(seccomp.ALLOW, "fcntl", seccomp.Arg(1, seccomp.MASKED_EQ, 0xFFFFFFFF, command))
    for command in LOCK_FCNTLS:
        f.add_rule(seccomp.ERRNO(errno.ENOLCK), "fcntl", seccomp.Arg(1, seccomp.MASKED_EQ, 0xFFFFFFFF, command))
    f.add_rule(seccomp.ERRNO(errno.ENOLCK), "flock")
    # Only AF_UNIX sockets (asyncio's self-pipe uses socketpair(AF_UNIX)). (A full 64-bit compare:
    # garbage in the upper half is refused, never let through.)
    f.add_rule(seccomp.ALLOW, "socket", seccomp.Arg(0, seccomp.EQ, AF_UNIX))
    f.add_rule(seccomp.ALLOW, "socketpair", seccomp.Arg(0, seccomp.EQ, AF_UNIX))
    # Threads and processes, never a new namespace (unshare and setns are not allowed at all).
    f.add_rule(seccomp.ALLOW, "clone", seccomp.Arg(0, seccomp.MASKED_EQ, CLONE_NEW_MASK, 0))
    # clone3 passes its flags in memory that seccomp cannot read: make glibc fall back to clone.
    f.add_rule(seccomp.ERRNO(errno.ENOSYS), "clone3")
    # Limits, priorities and CPU placement of the caller only (pid 0), never of another process
    # (prlimit on the strict zygote's pid lowered the limits every later child inherited);
    # setpriority/ioprio_set never on a process group or a user (who 0 would be "my user").
    for name in PID_FIRST:
        f.add_rule(seccomp.ALLOW, name, seccomp.Arg(0, seccomp.EQ, 0))
    f.add_rule(seccomp.ALLOW, "setpriority", seccomp.Arg(0, seccomp.EQ, PRIO_PROCESS), seccomp.Arg(1, seccomp.EQ, 0))
    f.add_rule(seccomp.ALLOW, "ioprio_set", seccomp.Arg(0, seccomp.EQ, IOPRIO_WHO_PROCESS), seccomp.Arg(1, seccomp.EQ, 0))
    return f


def runner_filter() -> seccomp.SyscallFilter:
    """Stacked by the runner on itself at start: no program can be executed and no memfd made any more."""
    f = seccomp.SyscallFilter(defaction=seccomp.ALLOW)
    for name in RUNNER_DENIED:
        f.add_rule(_eperm(), name)
    return f


def user_filter() -> seccomp.SyscallFilter:
    """Stacked before user code runs: no new process (threads are still allowed)."""
    f = seccomp.SyscallFilter(defaction=seccomp.ALLOW)
    for name in USER_DENIED:
        f.add_rule(_eperm(), name)
    # clone without CLONE_THREAD is a new process (fork, posix_spawn, subprocess).
    f.add_rule(_eperm(), "clone", seccomp.Arg(0, seccomp.MASKED_EQ, CLONE_THREAD, 0))
    # Repeated from the base filter so that this filter stands on its own.
    f.add_rule(seccomp.ERRNO(errno.ENOSYS), "clone3")
    return f


if __name__ == "__main__":
    import sys

    # build.sh: python3 policy.py OUT.bpf OUT.pfc
    bpf_path, pfc_path = sys.argv[1], sys.argv[2]
    with open(bpf_path, "wb") as out:
        base_filter().export_bpf(out)
    with open(pfc_path, "w") as out:
        base_filter().export_pfc(out)
