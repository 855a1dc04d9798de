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
  set*id call; the page-cache probes and evictions (``mincore``, ``cachestat``, ``readahead``,
  ``getrusage``, fadvise DONTNEED/NOREUSE, preadv2/pwritev2 RWF_NOWAIT/RWF_DONTCACHE, madvise
  COLD/PAGEOUT/MERGEABLE: a channel between workspaces through the host files every box binds),
  setsockopt's buffer sizes (kernel memory outside RLIMIT_AS) and every prctl option that changes
  how the host sees the process (PR_SET_NAME, PR_SET_MM, ...). ioctl and fcntl are allowed for a short list of requests (no TIOCSTI, no inode-flag setters, no
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
    "read", "write", "readv", "writev", "pread64", "pwrite64", "preadv", "pwritev", "lseek",
    "close", "close_range", "dup", "dup2", "dup3", "sendfile", "copy_file_range", "splice", "tee",
    "fsync", "fdatasync", "ftruncate", "truncate", "fallocate",
    # paths (the filesystem is read-only but /tmp; bwrap decides what exists)
    "open", "openat", "openat2", "creat", "stat", "fstat", "lstat", "newfstatat", "statx",
    "access", "faccessat", "faccessat2", "readlink", "readlinkat", "getdents", "getdents64",
    "getcwd", "chdir", "fchdir", "mkdir", "mkdirat", "rmdir", "unlink", "unlinkat", "rename",
    "renameat", "renameat2", "link", "linkat", "symlink", "symlinkat", "chmod", "fchmod",
    "fchmodat", "chown", "fchown", "lchown", "fchownat", "umask", "utime", "utimes", "utimensat",
    "futimesat", "statfs", "fstatfs", "getxattr", "lgetxattr", "fgetxattr", "listxattr",
    "llistxattr", "flistxattr",
    # memory (memfd_create only until the runner filter is loaded; madvise is in CONDITIONAL)
    "brk", "mmap", "munmap", "mprotect", "mremap", "msync", "membarrier", "memfd_create",
    # processes and threads (fork, vfork and execve are taken away again by the runner and user
    # filters; bwrap needs execve to start python)
    "fork", "vfork", "execve", "exit", "exit_group", "wait4", "waitid", "set_tid_address",
    "set_robust_list", "get_robust_list", "rseq", "futex", "futex_waitv", "getpid", "getppid",
    "gettid", "getpgrp", "getpgid", "getsid", "setsid", "setpgid", "sched_yield",
    "sched_getaffinity", "sched_getparam", "sched_getscheduler", "sched_get_priority_max",
    "sched_get_priority_min", "sched_rr_get_interval", "sched_getattr", "getpriority", "ioprio_get",
    "getrlimit", "setrlimit", "times", "uname", "arch_prctl",
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
    "getsockopt",
)

# --- The host's page cache (a channel between workspaces: every box binds the same host files).
# Reading a file loads its pages: that cannot be refused. What is refused is every call that evicts
# a page of a file the box does not own, or tells whether a page is resident without the time it
# takes: fadvise64 DONTNEED/NOREUSE (evict), preadv2/pwritev2 with RWF_NOWAIT (EAGAIN when not
# cached) or RWF_DONTCACHE (drops what it read), mincore (residency of a mapping), cachestat (Linux
# 6.5, not on the allow list), readahead (loads without a copy, and is nothing anyone needs),
# getrusage (ru_inblock and ru_majflt count the reads and faults that went to disk), madvise COLD
# and PAGEOUT (reclaim) and MERGEABLE/UNMERGEABLE (KSM: merged pages of two boxes are another
# channel). Not filtered: mmap's MAP_POPULATE (loads, like a read; MAP_NONBLOCK is ignored by the
# kernel), msync (MS_INVALIDATE does nothing on Linux), madvise WILLNEED/POPULATE_* (load) and
# DONTNEED (unmaps the box's own view; the cached page stays). remap_file_pages, sync_file_range,
# io_uring, AIO and process_madvise are not on the allow list at all. A pure timing channel is left
# (how long a read takes): sandbox/README.md § Known residuals.
# fadvise64(fd, offset, len, advice): NORMAL, RANDOM, SEQUENTIAL, WILLNEED (advice only for the
# caller's own descriptor, or a load).
ALLOWED_FADVICE = (0, 1, 2, 3)
# preadv2/pwritev2's flags (argument 5, an int): only RWF_HIPRI, RWF_DSYNC, RWF_SYNC, RWF_APPEND,
# RWF_NOAPPEND; any other bit (RWF_NOWAIT 0x8, RWF_ATOMIC 0x40, RWF_DONTCACHE 0x80, future ones)
# -> EPERM. CPython calls preadv2 only when os.preadv/os.pwritev get flags.
RWF_ALLOWED = 0x01 | 0x02 | 0x04 | 0x10 | 0x20
RWF_REFUSED_MASK = 0xFFFFFFFF & ~RWF_ALLOWED
# madvise advice allowed (argument 2, an int): NORMAL, RANDOM, SEQUENTIAL, WILLNEED, DONTNEED, FREE,
# REMOVE, DONTFORK, DOFORK, HUGEPAGE, NOHUGEPAGE, DONTDUMP, DODUMP, WIPEONFORK, KEEPONFORK,
# POPULATE_READ, POPULATE_WRITE, DONTNEED_LOCKED, COLLAPSE, GUARD_INSTALL, GUARD_REMOVE. Not:
# MERGEABLE 12, UNMERGEABLE 13, COLD 20, PAGEOUT 21, HWPOISON 100, SOFT_OFFLINE 101.
ALLOWED_MADVICE = (0, 1, 2, 3, 4, 8, 9, 10, 11, 14, 15, 16, 17, 18, 19, 22, 23, 24, 25, 102, 103)

# --- Kernel memory outside RLIMIT_AS: socket buffers. An AF_UNIX socket's queued data is charged
# to its send buffer, which SO_SNDBUF raises to net.core.wmem_max (x2): 64 descriptors held 235 MiB
# of kernel memory per runner. seccomp sees setsockopt's level and option, not the value they
# point to, so SO_SNDBUF, SO_RCVBUF and their FORCE variants are refused whatever the value, and
# every socket keeps the host's defaults (net.core.wmem_default/rmem_default): at most
# openFiles x (wmem_default + one skb) of buffers per runner (test/sandbox/socket-buffers.test.ts).
# setsockopt is allowed only at SOL_SOCKET (the sockets are AF_UNIX: no other level means
# anything), for these options: SO_REUSEADDR 2, SO_BROADCAST 6, SO_KEEPALIVE 9, SO_OOBINLINE 10,
# SO_PRIORITY 12, SO_LINGER 13, SO_REUSEPORT 15, SO_PASSCRED 16, SO_RCVLOWAT 18, SO_SNDLOWAT 19,
# SO_RCVTIMEO_OLD 20, SO_SNDTIMEO_OLD 21, SO_TIMESTAMP 29, SO_PASSSEC 34, SO_TIMESTAMPNS 35,
# SO_PEEK_OFF 42, SO_RCVTIMEO_NEW 66, SO_SNDTIMEO_NEW 67, SO_PASSPIDFD 76.
SOL_SOCKET = 1
ALLOWED_SOCKOPTS = (2, 6, 9, 10, 12, 13, 15, 16, 18, 19, 20, 21, 29, 34, 35, 42, 66, 67, 76)

# --- prctl: only options that read the caller's own state, or restrict it, or that the runner and
# libseccomp need (PR_SET_NO_NEW_PRIVS, PR_SET_SECCOMP). Refused among others: PR_SET_NAME (an
# idle runner showed up in the host's ps as "postgres: walw"), PR_SET_MM (the command line and
# environment the host sees), PR_SET_VMA (names of mappings in the host's /proc/<pid>/maps),
# PR_SET_DUMPABLE (the owner of its /proc/<pid> on the host), PR_SET_PTRACER, PR_SET_CHILD_SUBREAPER,
# PR_SET_MEMORY_MERGE (KSM), PR_SET_SYSCALL_USER_DISPATCH, PR_SET_KEEPCAPS, PR_SET_TSC,
# PR_SET_IO_FLUSHER, PR_SCHED_CORE.
# PR_SET_PDEATHSIG 1, PR_GET_PDEATHSIG 2, PR_GET_DUMPABLE 3, PR_GET_KEEPCAPS 7, PR_GET_TIMING 13,
# PR_GET_NAME 16, PR_GET_SECCOMP 21, PR_SET_SECCOMP 22, PR_CAPBSET_READ 23, PR_GET_TSC 25,
# PR_GET_SECUREBITS 27, PR_SET_TIMERSLACK 29, PR_GET_TIMERSLACK 30, PR_TASK_PERF_EVENTS_DISABLE 31,
# PR_TASK_PERF_EVENTS_ENABLE 32, PR_MCE_KILL_GET 34, PR_GET_CHILD_SUBREAPER 37,
# PR_SET_NO_NEW_PRIVS 38, PR_GET_NO_NEW_PRIVS 39, PR_GET_TID_ADDRESS 40, PR_SET_THP_DISABLE 41,
# PR_GET_THP_DISABLE 42, PR_CAP_AMBIENT 47 (raising needs the capability), PR_GET_SPECULATION_CTRL 52,
# PR_SET_SPECULATION_CTRL 53 (can only restrict), PR_GET_IO_FLUSHER 58, PR_SET_MDWE 65,
# PR_GET_MDWE 66, PR_GET_MEMORY_MERGE 68, PR_GET_AUXV 0x41555856.
ALLOWED_PRCTLS = (1, 2, 3, 7, 13, 16, 21, 22, 23, 25, 27, 29, 30, 31, 32, 34, 37, 38, 39, 40, 41, 42, 47, 52, 53, 58, 65, 66, 68, 0x41555856)

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
    # The page cache (see ALLOWED_FADVICE above); all are int arguments: compared on 32 bits.
    for advice in ALLOWED_FADVICE:
        f.add_rule(seccomp.ALLOW, "fadvise64", seccomp.Arg(3, seccomp.MASKED_EQ, 0xFFFFFFFF, advice))
    for name in ("preadv2", "pwritev2"):
        f.add_rule(seccomp.ALLOW, name, seccomp.Arg(5, seccomp.MASKED_EQ, RWF_REFUSED_MASK, 0))
    for advice in ALLOWED_MADVICE:
        f.add_rule(seccomp.ALLOW, "madvise", seccomp.Arg(2, seccomp.MASKED_EQ, 0xFFFFFFFF, advice))
    for option in ALLOWED_SOCKOPTS:
        f.add_rule(seccomp.ALLOW, "setsockopt", seccomp.Arg(1, seccomp.MASKED_EQ, 0xFFFFFFFF, SOL_SOCKET), seccomp.Arg(2, seccomp.MASKED_EQ, 0xFFFFFFFF, option))
    for option in ALLOWED_PRCTLS:
        f.add_rule(seccomp.ALLOW, "prctl", seccomp.Arg(0, seccomp.MASKED_EQ, 0xFFFFFFFF, option))
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
