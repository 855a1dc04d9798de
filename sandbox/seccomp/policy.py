"""Seccomp policy of the evaluator sandbox: the reviewed source of every filter.

Three filters stack (the kernel runs every loaded filter and the strictest answer wins; a filter
can never be removed or loosened once loaded):

* ``base``   -- compiled to ``base.<arch>.bpf`` by build.sh and loaded by ``bwrap --seccomp FD``
  just before Python starts, so it covers the runner and everything it ever runs. It refuses the
  kernel surfaces an evaluator has no use for and that widen the attack surface: non-AF_UNIX
  sockets (no network even if a namespace were misconfigured), ptrace and cross-process memory,
  mount and friends, namespace creation (unshare, setns, clone with CLONE_NEW*), bpf, io_uring,
  the kernel keyring, perf, userfaultfd, module loading, kexec, reboot, clock and host settings,
  handle-based opens (the classic container escape) and TIOCSTI terminal injection. It also
  refuses what would hold host memory or host-wide counters outside the sandbox's limits: System V
  IPC and POSIX message queues (shared memory and queues outlive the process that made them and are
  not address space: RLIMIT_AS does not see them), inotify/fanotify instances and pipe resizing
  (counted per host user, and the sandbox's user is the host user that started bwrap), and
  extended attributes (the one piece of state on /tmp that emptying /tmp does not remove).
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

# Syscalls newer than Debian 12's libseccomp (2.5.4), refused by number. Numbers from 424 on are
# the same on every architecture this project builds for (x86_64, aarch64).
NEWER_DENIED = {
    463: "setxattrat",  # Linux 6.13
    466: "removexattrat",  # Linux 6.13
    467: "open_tree_attr",  # Linux 6.15
}

# Syscalls refused outright by the base filter, grouped by why.
BASE_DENIED = (
    # debugging / reading other processes
    "ptrace", "process_vm_readv", "process_vm_writev", "pidfd_getfd", "kcmp",
    # filesystems and namespaces
    "mount", "umount2", "pivot_root", "chroot", "move_mount", "open_tree", "fsopen", "fsconfig",
    "fsmount", "fspick", "mount_setattr", "unshare", "setns",
    "name_to_handle_at", "open_by_handle_at",
    # kernel attack surface with no use here
    "bpf", "perf_event_open", "userfaultfd", "io_uring_setup", "io_uring_enter", "io_uring_register",
    "keyctl", "add_key", "request_key", "lookup_dcookie", "fanotify_init",
    # host administration
    "init_module", "finit_module", "delete_module", "kexec_load", "kexec_file_load", "reboot",
    "swapon", "swapoff", "acct", "settimeofday", "clock_settime", "clock_adjtime", "adjtimex",
    "sethostname", "setdomainname", "syslog", "quotactl", "vhangup", "iopl", "ioperm",
    # memory outside RLIMIT_AS that outlives its process, and a channel between processes:
    # System V shared memory, message queues and semaphores; POSIX message queues
    "shmget", "shmat", "shmdt", "shmctl", "msgget", "msgsnd", "msgrcv", "msgctl",
    "semget", "semop", "semctl", "semtimedop",
    "mq_open", "mq_unlink", "mq_timedsend", "mq_timedreceive", "mq_notify", "mq_getsetattr",
    # per-host-user kernel counters (the sandbox's uid maps to the host uid that started bwrap)
    "inotify_init", "inotify_init1", "inotify_add_watch", "inotify_rm_watch", "fanotify_mark",
    # extended attributes: state on /tmp itself that survives emptying it (reads stay allowed)
    "setxattr", "lsetxattr", "fsetxattr", "removexattr", "lremovexattr", "fremovexattr",
)

RUNNER_DENIED = ("execve", "execveat", "memfd_create", "memfd_secret")
USER_DENIED = ("fork", "vfork")


def _eperm() -> int:
    return seccomp.ERRNO(errno.EPERM)


def base_filter() -> seccomp.SyscallFilter:
    """The filter that bwrap loads for the whole sandbox (see the module docstring)."""
    f = seccomp.SyscallFilter(defaction=seccomp.ALLOW)
    for name in BASE_DENIED:
        f.add_rule(_eperm(), name)
    for number in NEWER_DENIED:
        f.add_rule(_eperm(), number)
    # Growing a pipe's buffer charges pages to the host user (fs.pipe-user-pages-soft).
    # (The kernel reads cmd as 32 bits: compare only those, as for TIOCSTI below.)
    f.add_rule(_eperm(), "fcntl", seccomp.Arg(1, seccomp.MASKED_EQ, 0xFFFFFFFF, F_SETPIPE_SZ))
    # Only AF_UNIX sockets (asyncio's self-pipe uses socketpair(AF_UNIX)).
    f.add_rule(_eperm(), "socket", seccomp.Arg(0, seccomp.NE, AF_UNIX))
    f.add_rule(_eperm(), "socketpair", seccomp.Arg(0, seccomp.NE, AF_UNIX))
    # No new namespaces through clone's flags either (unshare is denied above).
    for flag in CLONE_NEW_FLAGS:
        f.add_rule(_eperm(), "clone", seccomp.Arg(0, seccomp.MASKED_EQ, flag, flag))
    # clone3 passes its flags in memory that seccomp cannot read: make glibc fall back to clone.
    f.add_rule(seccomp.ERRNO(errno.ENOSYS), "clone3")
    # Terminal input injection (also prevented by bwrap --new-session).
    f.add_rule(_eperm(), "ioctl", seccomp.Arg(1, seccomp.MASKED_EQ, 0xFFFFFFFF, TIOCSTI))
    for request in FLAG_SETTING_IOCTLS:
        f.add_rule(_eperm(), "ioctl", seccomp.Arg(1, seccomp.MASKED_EQ, 0xFFFFFFFF, request))
    # Limits, priorities and CPU placement of the caller only (pid 0), never of another process:
    # setpriority/ioprio_set also refuse process groups and users (who 0 would be "my user",
    # every runner of the host uid).
    for name in PID_FIRST:
        f.add_rule(_eperm(), name, seccomp.Arg(0, seccomp.NE, 0))
    f.add_rule(_eperm(), "setpriority", seccomp.Arg(0, seccomp.NE, PRIO_PROCESS))
    f.add_rule(_eperm(), "setpriority", seccomp.Arg(1, seccomp.NE, 0))
    f.add_rule(_eperm(), "ioprio_set", seccomp.Arg(0, seccomp.NE, IOPRIO_WHO_PROCESS))
    f.add_rule(_eperm(), "ioprio_set", seccomp.Arg(1, seccomp.NE, 0))
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
