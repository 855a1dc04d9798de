"""Starts one sandbox for a root worker: a private mount namespace, the box's mounts, the box uid.

Run by the worker (as root, python3.11 -I -S, empty environment) in place of bwrap; ends by
exec'ing bwrap as the box uid (same pid, same descriptors 0-4). Standard library only.

  box_launch.py --state DIR --uid N --tmpfs-bytes B --tmpfs-inodes I --runner SRC --lib SRC
                [--probe] -- BWRAP ARG...

1. unshare(CLONE_NEWNS) and make every mount private: nothing below reaches the host's mount
   table, and everything below goes when the sandbox's last process exits (no unmount, no stale
   mounts after a SIGKILL).
2. Opens DIR (the state directory, src/execution/state-dir.ts) one component at a time with
   O_NOFOLLOW | O_DIRECTORY from /, and checks on the descriptor that it is root's, mode 0700.
3. Mounts a small tmpfs (root's, mode 0755: the "view") over DIR *by descriptor*
   (/proc/self/fd/<n>), re-opens DIR the same way and checks that it is now that tmpfs (another
   device, root's, 0755). In it, three directories made with mkdirat, each mounted by descriptor:
   `tmp` a tmpfs of B bytes and I inodes, mode 1777, owned by the box uid (the sandbox's /tmp,
   with the inode cap bwrap 0.8's --tmpfs lacks); `runner` and `lib` read-only binds of SRC
   (the repository's sandbox/ and python-lib/): the box uid reaches them whatever the modes of
   the checkout's parent directories. Every mount is checked after it is made (the descriptor
   re-opened by name is on a new device, with the expected owner and mode).
4. setgroups([]), setresgid and setresuid to N (all capabilities go with uid 0), chdir("/"),
   exec BWRAP (which binds DIR/tmp, DIR/runner and DIR/lib into the jail).

--probe stops after step 3 and prints "ok" (the worker's one-time check that it may mount).
Exit codes before the exec: 121 the state directory is unsafe (message names it), 122 not
allowed to unshare or mount (EPERM: e.g. a container without CAP_SYS_ADMIN), 123 anything else.
"""

import ctypes
import errno
import os
import stat
import sys

CLONE_NEWNS = 0x00020000
MS_RDONLY = 0x1
MS_NOSUID = 0x2
MS_NODEV = 0x4
MS_NOEXEC = 0x8
MS_REMOUNT = 0x20
MS_BIND = 0x1000
MS_REC = 0x4000
MS_PRIVATE = 1 << 18

EXIT_UNSAFE = 121
EXIT_NO_PRIVILEGE = 122
EXIT_FAILED = 123

DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC

_libc = ctypes.CDLL(None, use_errno=True)
_libc.mount.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_ulong, ctypes.c_char_p]
_libc.unshare.argtypes = [ctypes.c_int]


def fail(code, message):
    sys.stderr.write("box_launch: %s\n" % message)
    sys.stderr.flush()
    os._exit(code)


def syscall_failed(what):
    err = ctypes.get_errno()
    code = EXIT_NO_PRIVILEGE if err == errno.EPERM else EXIT_FAILED
    fail(code, "%s: %s" % (what, os.strerror(err)))


def mount(source, target_fd, fstype, flags, data, what):
    target = ("/proc/self/fd/%d" % target_fd).encode()
    rc = _libc.mount(source and source.encode(), target, fstype and fstype.encode(), flags, data and data.encode())
    if rc != 0:
        syscall_failed(what)


def is_symlink(name, dir_fd):
    try:
        return stat.S_ISLNK(os.lstat(name, dir_fd=dir_fd).st_mode)
    except OSError:
        return False


def open_nofollow(path):
    """Opens an absolute directory path component by component, never following a symlink."""
    fd = os.open("/", DIR_FLAGS)
    shown = ""
    for part in path.split("/"):
        if not part:
            continue
        if part in (".", ".."):
            fail(EXIT_UNSAFE, "%s: the state directory's path must be normalised" % path)
        shown += "/" + part
        try:
            child = os.open(part, DIR_FLAGS, dir_fd=fd)
        except OSError as error:
            if error.errno == errno.ELOOP or (error.errno == errno.ENOTDIR and is_symlink(part, fd)):
                fail(EXIT_UNSAFE, "%s is a symlink" % shown)
            fail(EXIT_UNSAFE, "%s: %s" % (shown, error.strerror))
        os.close(fd)
        fd = child
    return fd


def expect(fd, shown, uid, mode, not_dev=None):
    st = os.fstat(fd)
    if not stat.S_ISDIR(st.st_mode) or st.st_uid != uid or stat.S_IMODE(st.st_mode) != mode:
        fail(EXIT_UNSAFE, "%s must be uid %d's with mode %04o (found uid %d, mode %04o)" % (shown, uid, mode, st.st_uid, stat.S_IMODE(st.st_mode)))
    if not_dev is not None and st.st_dev == not_dev:
        fail(EXIT_FAILED, "%s: the mount is not where it was made" % shown)
    return st


def parse(argv):
    opts = {"probe": False}
    i = 0
    while i < len(argv):
        arg = argv[i]
        if arg == "--":
            return opts, argv[i + 1:]
        if arg == "--probe":
            opts["probe"] = True
            i += 1
            continue
        if i + 1 >= len(argv):
            fail(EXIT_FAILED, "%s needs a value" % arg)
        opts[arg.lstrip("-")] = argv[i + 1]
        i += 2
    return opts, []


def main():
    opts, command = parse(sys.argv[1:])
    try:
        state = opts["state"]
        uid = int(opts["uid"])
        tmpfs_bytes = int(opts["tmpfs-bytes"])
        tmpfs_inodes = int(opts["tmpfs-inodes"])
        sources = {"runner": opts["runner"], "lib": opts["lib"]}
    except (KeyError, ValueError) as error:
        fail(EXIT_FAILED, "bad arguments: %s" % error)
    if uid <= 0 or not state.startswith("/") or (not opts["probe"] and not command):
        fail(EXIT_FAILED, "bad arguments")

    if _libc.unshare(CLONE_NEWNS) != 0:
        syscall_failed("unshare(CLONE_NEWNS)")
    if _libc.mount(None, b"/", None, MS_REC | MS_PRIVATE, None) != 0:
        syscall_failed("making / private")

    # The state directory: root's 0700, reached without a symlink, checked on the descriptor used.
    dir_fd = open_nofollow(state)
    host_dev = expect(dir_fd, state, 0, 0o700).st_dev
    mount("oodle-box-view", dir_fd, "tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC, "mode=0755,size=16k,nr_inodes=16", "mounting the view over " + state)
    os.close(dir_fd)
    view = open_nofollow(state)
    view_dev = expect(view, state + " (view)", 0, 0o755, not_dev=host_dev).st_dev

    def point(name):
        os.mkdir(name, 0o755, dir_fd=view)
        return os.open(name, DIR_FLAGS, dir_fd=view)

    tmp = point("tmp")
    options = "size=%d,nr_inodes=%d,mode=1777,uid=%d,gid=%d" % (tmpfs_bytes, tmpfs_inodes, uid, uid)
    mount("oodle-box-tmp", tmp, "tmpfs", MS_NOSUID | MS_NODEV, options, "mounting the box's /tmp")
    os.close(tmp)
    tmp = os.open("tmp", DIR_FLAGS, dir_fd=view)
    expect(tmp, state + "/tmp", uid, 0o1777, not_dev=view_dev)
    os.close(tmp)
    for name, source in sources.items():
        fd = point(name)
        rc = _libc.mount(source.encode(), ("/proc/self/fd/%d" % fd).encode(), None, MS_BIND, None)
        if rc != 0:
            syscall_failed("binding %s" % source)
        os.close(fd)
        fd = os.open(name, DIR_FLAGS, dir_fd=view)
        mount(None, fd, None, MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | MS_NODEV, None, "making %s read-only" % name)
        if os.fstat(fd).st_dev == view_dev:
            fail(EXIT_FAILED, "%s/%s: the bind is not where it was made" % (state, name))
        os.close(fd)
    os.close(view)

    if opts["probe"]:
        sys.stdout.write("ok\n")
        sys.stdout.flush()
        os._exit(0)

    os.setgroups([])
    os.setresgid(uid, uid, uid)
    os.setresuid(uid, uid, uid)
    if os.getresuid() != (uid, uid, uid) or os.getresgid() != (uid, uid, uid):
        fail(EXIT_FAILED, "could not become uid %d" % uid)
    os.chdir("/")
    try:
        os.execv(command[0], command)
    except OSError as error:
        fail(EXIT_FAILED, "exec %s: %s" % (command[0], error.strerror))


if __name__ == "__main__":
    main()
