// The base seccomp filter is default-deny (docs/sandbox.md § What is refused): a table of system calls probed by
// number from inside the sandbox (ctypes syscall()), each denied one answering EPERM before the
// kernel looks at its arguments, each allowed one reaching the kernel (any other answer).
import { arch } from "node:os";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Executor } from "../../src/execution/index.js";
import { item, keyFor, testExecutor } from "./helpers.js";

const PROBE = `import ctypes

def evaluate(ctx):
    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    scores = []
    for name, args in ctx.params["calls"]:
        ctypes.set_errno(0)
        ret = libc.syscall(*[ctypes.c_long(a) for a in args])
        scores.append(Score(name=name, value=ctypes.get_errno() if ret == -1 else 0))
    return EvaluationResult(scores=scores)
`;

const EPERM = 1;
const MINUS_ONE = -1;
// [name, [number, ...args]] for x86_64. Denied: EPERM whatever the arguments.
const DENIED: [string, number[]][] = [
  ["io_setup", [206, 1, 0]],
  ["io_submit", [209, 0, 0, 0]],
  ["io_destroy", [207, 0]],
  ["personality", [135, 0xffffffff]],
  ["move_pages", [279, 0, 0, 0, 0, 0, 0]],
  ["migrate_pages", [256, 0, 0, 0, 0]],
  ["mbind", [237, 0, 0, 0, 0, 0, 0]],
  ["set_mempolicy", [238, 0, 0, 0]],
  ["process_madvise", [440, 0, 0, 0, 0, 0]],
  ["process_mrelease", [448, 0, 0]],
  ["pidfd_open", [434, 1, 0]],
  ["pidfd_send_signal", [424, 0, 0, 0, 0]],
  ["pidfd_getfd", [438, 0, 0, 0]],
  ["kcmp", [312, 1, 1, 0, 0, 0]],
  ["ptrace", [101, 0, 0, 0, 0]],
  ["unshare", [272, 0]],
  ["setns", [308, 0, 0]],
  ["mount", [165, 0, 0, 0, 0, 0]],
  ["bpf", [321, 0, 0, 0]],
  ["io_uring_setup", [425, 1, 0]],
  ["userfaultfd", [323, 0]],
  ["perf_event_open", [298, 0, 0, 0, 0, 0]],
  ["mlock", [149, 0, 4096]],
  ["sync", [162]],
  ["sysinfo (host-wide load, RAM, process count)", [99, 0]],
  ["mknodat", [259, -100, 0, 0, 0]],
  ["setuid", [105, 0]],
  ["capset", [126, 0, 0]],
  ["modify_ldt", [154, 0, 0, 0]],
  ["landlock_create_ruleset", [444, 0, 0, 1]],
  ["memfd_secret", [447, 0]],
  ["shmget", [29, 0, 4096, 0]],
  ["inotify_init1", [294, 0]],
  ["quotactl_fd", [443, 0, 0, 0, 0]],
  ["statmount (6.8)", [457, 0, 0, 0, 0]],
  ["listmount (6.8)", [458, 0, 0, 0, 0]],
  ["file_getattr (6.17)", [468, 0, 0, 0, 0, 0]],
  ["file_setattr (6.17)", [469, 0, 0, 0, 0, 0]],
  ["unassigned 471", [471]],
  ["unassigned 1000", [1000]],
  ["prlimit64 on pid 1", [302, 1, 7, 0, 0]],
  ["sched_setaffinity on pid 1", [203, 1, 0, 0]],
  ["setpriority PRIO_USER", [141, 2, 0, 19]],
  ["setpriority on pid 1", [141, 0, 1, 19]],
  ["ioctl FS_IOC_SETFLAGS", [16, 0, 0x40086602, 0]],
  ["ioctl TIOCSTI", [16, 0, 0x5412, 0]],
  ["fcntl F_SETPIPE_SZ", [72, 0, 1031, 1 << 20]],
  ["socket AF_INET", [41, 2, 1, 0]],
  ["clone CLONE_NEWUSER", [56, 0x10000000 | 17, 0, 0, 0, 0]],
  // The page cache (a channel between workspaces): eviction and residency probes.
  ["fadvise64 DONTNEED", [221, MINUS_ONE, 0, 0, 4]],
  ["fadvise64 NOREUSE", [221, MINUS_ONE, 0, 0, 5]],
  ["preadv2 RWF_NOWAIT", [327, MINUS_ONE, 0, 0, 0, 0, 8]],
  ["preadv2 RWF_NOWAIT, upper half clear", [327, MINUS_ONE, 0, 0, 0, 0, 0x1_0000_0008]],
  ["preadv2 RWF_DONTCACHE", [327, MINUS_ONE, 0, 0, 0, 0, 0x80]],
  ["pwritev2 RWF_NOWAIT", [328, MINUS_ONE, 0, 0, 0, 0, 8]],
  ["mincore", [27, 0, 4096, 0]],
  ["cachestat (6.5)", [451, MINUS_ONE, 0, 0, 0]],
  ["readahead", [187, MINUS_ONE, 0, 4096]],
  ["getrusage (ru_inblock, ru_majflt)", [98, 0, 0]],
  ["madvise PAGEOUT", [28, 0, 0, 21]],
  ["madvise COLD", [28, 0, 0, 20]],
  ["madvise MERGEABLE (KSM)", [28, 0, 0, 12]],
  // Socket buffers (kernel memory outside RLIMIT_AS): refused whatever the value.
  ["setsockopt SO_SNDBUF", [54, MINUS_ONE, 1, 7, 0, 4]],
  ["setsockopt SO_RCVBUF", [54, MINUS_ONE, 1, 8, 0, 4]],
  ["setsockopt SO_SNDBUFFORCE", [54, MINUS_ONE, 1, 32, 0, 4]],
  ["setsockopt SO_RCVBUFFORCE", [54, MINUS_ONE, 1, 33, 0, 4]],
  ["setsockopt SO_SNDBUF, level with upper bits", [54, MINUS_ONE, 0x1_0000_0001, 7, 0, 4]],
  ["setsockopt at IPPROTO_TCP", [54, MINUS_ONE, 6, 1, 0, 4]],
  // prctl: renaming or re-describing the process as the host sees it.
  ["prctl PR_SET_NAME", [157, 15, 0, 0, 0, 0]],
  ["prctl PR_SET_MM", [157, 35, 8, 0, 0, 0]],
  ["prctl PR_SET_VMA", [157, 0x53564d41, 0, 0, 0, 0]],
  ["prctl PR_SET_DUMPABLE", [157, 4, 0, 0, 0, 0]],
  ["prctl PR_SET_PTRACER", [157, 0x59616d61, 1, 0, 0, 0]],
  ["prctl PR_SET_MEMORY_MERGE", [157, 67, 1, 0, 0, 0]],
];
// File locks (a channel between boxes through the host files they all bind): ENOLCK, even on a bad fd.
const ENOLCK = 37;
const LOCKS: [string, number[]][] = [
  ["fcntl F_GETLK", [72, MINUS_ONE, 5, 0]],
  ["fcntl F_SETLK", [72, MINUS_ONE, 6, 0]],
  ["fcntl F_SETLKW", [72, MINUS_ONE, 7, 0]],
  ["fcntl F_OFD_GETLK", [72, MINUS_ONE, 36, 0]],
  ["fcntl F_OFD_SETLK", [72, MINUS_ONE, 37, 0]],
  ["fcntl F_OFD_SETLKW", [72, MINUS_ONE, 38, 0]],
  ["flock LOCK_SH", [73, MINUS_ONE, 1]],
];
// Allowed: the call reaches the kernel, whose answer (a value or another errno) is not EPERM.
const ALLOWED: [string, number[]][] = [
  ["getpid", [39]],
  ["gettid", [186]],
  ["sched_yield", [24]],
  ["close(-1) -> EBADF", [3, MINUS_ONE]],
  ["getrandom(NULL, 0)", [318, 0, 0, 0]],
  ["prlimit64 on itself (read)", [302, 0, 7, 0, 0]],
  ["setpriority on itself", [141, 0, 0, 0]],
  ["fcntl F_GETFD", [72, 0, 1]],
  ["fcntl F_GETFL on a bad fd -> EBADF", [72, MINUS_ONE, 3]],
  ["ioctl FIONREAD on a bad fd -> EBADF", [16, MINUS_ONE, 0x541b, 0]],
  ["socket AF_UNIX", [41, 1, 1, 0]],
  ["fadvise64 SEQUENTIAL on a bad fd -> EBADF", [221, MINUS_ONE, 0, 0, 2]],
  ["preadv2 without flags on a bad fd -> EBADF", [327, MINUS_ONE, 0, 0, 0, 0, 0]],
  ["preadv2 RWF_HIPRI on a bad fd -> EBADF", [327, MINUS_ONE, 0, 0, 0, 0, 1]],
  ["madvise DONTNEED (allocators)", [28, 0, 0, 4]],
  ["madvise WILLNEED", [28, 0, 0, 3]],
  ["setsockopt SO_REUSEADDR on a bad fd -> EBADF", [54, MINUS_ONE, 1, 2, 0, 4]],
  ["prctl PR_GET_DUMPABLE", [157, 3, 0, 0, 0, 0]],
  ["prctl PR_GET_NO_NEW_PRIVS", [157, 39, 0, 0, 0, 0]],
];

let executor: Executor;
beforeAll(() => {
  executor = testExecutor();
});
afterAll(() => executor.close());

describe.skipIf(arch() !== "x64")("base seccomp filter (default-deny), probed by number", () => {
  it.each(["warm", "strict"] as const)("answers EPERM to every call off the allow list, and lets the allowed ones through (%s)", async (mode) => {
    const calls = [...DENIED, ...LOCKS, ...ALLOWED];
    const [result, normal] = await executor.execute(keyFor(PROBE, { templateVersionId: "seccomp-probe", mode }), [item({ calls }), item({ calls: ALLOWED })]);
    expect(result!.outcome, JSON.stringify(result!.error)).toBe("ok");
    const errnos = Object.fromEntries(result!.scores.map((s) => [s.name, s.value]));
    expect(Object.fromEntries(DENIED.map(([name]) => [name, errnos[name]]))).toEqual(Object.fromEntries(DENIED.map(([name]) => [name, EPERM])));
    expect(Object.fromEntries(LOCKS.map(([name]) => [name, errnos[name]]))).toEqual(Object.fromEntries(LOCKS.map(([name]) => [name, ENOLCK])));
    for (const [name] of ALLOWED) expect(errnos[name], name).not.toBe(EPERM);
    expect(errnos["close(-1) -> EBADF"]).toBe(9);
    expect(normal!.outcome).toBe("ok");
  });
});
