import type { Limits } from "./limits.js";
import { packageBindArgs, type PackageBind } from "./sandbox-packages.js";

/** Where things live on the host. Every path is absolute and already resolved (no symlinks). */
export interface SandboxPaths {
  /** bubblewrap binary, e.g. /usr/bin/bwrap. */
  bwrap: string;
  /** The interpreter, e.g. /usr/bin/python3.11 (bound at the same path inside). */
  python: string;
  /** Read-only directories python needs, bound at the same path (stdlib, shared libraries, loader). */
  systemDirs: string[];
  /** This repository's sandbox/ directory (runner.py, seccomp/policy.py): /sandbox/runner inside. */
  runnerDir: string;
  /** python-lib/ (oodle_eval, sandbox_shims): /sandbox/lib inside. */
  pythonLibDir: string;
  /** python3-seccomp's extension module file: /sandbox/seccomp-module/<name> inside. */
  seccompModule: string;
  /** The curated packages' read-only binds (sandbox-packages.ts); none when absent. */
  packageBinds?: PackageBind[];
}

/** Paths as seen inside the sandbox. */
export const INSIDE = {
  runner: "/sandbox/runner/runner.py",
  runnerDir: "/sandbox/runner",
  lib: "/sandbox/lib",
  seccompModuleDir: "/sandbox/seccomp-module",
} as const;

/**
 * Builds the bubblewrap argument array (pure: same input, same output; nothing is read).
 *
 * The sandbox: every namespace unshared (own network namespace with only a down loopback, own
 * PID namespace, own user namespace mapped to nobody), a session of its own (no TIOCSTI), killed
 * with its parent; an empty environment; no /proc, no /home, no /etc but the BLAS/LAPACK
 * alternatives files numpy links through; read-only binds of the
 * interpreter, its libraries, the runner, python-lib and the curated packages (each entry on its own,
 * sandbox-packages.ts) only (no /dev); a size-capped tmpfs /tmp; the root
 * remounted read-only; the base seccomp filter read from `seccompFd`.
 *
 * @param paths - host paths, see {@link SandboxPaths}.
 * @param limits - uses `tmpfsBytes` (size of /tmp, when bwrap makes the tmpfs).
 * @param seccompFd - the child's file descriptor number from which bwrap reads the BPF program.
 * @param command - what runs inside; defaults to the runner (`python3.11 -I -S -B runner.py`).
 * @param tmpHostDir - a tmpfs mounted for this box (box_launch.py, in the runner's own mount
 *   namespace: it has an inode cap),
 *   bound at /tmp; absent: bwrap makes a size-capped tmpfs of its own (no inode cap).
 * @returns argv for bwrap, without the bwrap binary itself.
 */
export function buildBwrapArgs(
  paths: SandboxPaths,
  limits: Pick<Limits, "tmpfsBytes">,
  seccompFd: number,
  command: string[] = [paths.python, "-I", "-S", "-B", INSIDE.runner],
  tmpHostDir?: string,
): string[] {
  const args = [
    "--unshare-all",
    "--unshare-user",
    "--uid", "65534",
    "--gid", "65534",
    "--hostname", "sandbox",
    "--die-with-parent",
    "--new-session",
    "--clearenv",
    "--ro-bind", paths.python, paths.python,
  ];
  for (const dir of paths.systemDirs) args.push("--ro-bind", dir, dir);
  args.push(
    "--symlink", "usr/lib", "/lib",
    "--symlink", "usr/lib64", "/lib64",
    "--symlink", "usr/bin", "/bin",
    "--ro-bind", paths.runnerDir, INSIDE.runnerDir,
    "--ro-bind", paths.pythonLibDir, INSIDE.lib,
    "--ro-bind", paths.seccompModule, `${INSIDE.seccompModuleDir}/${basename(paths.seccompModule)}`,
    ...packageBindArgs(paths.packageBinds ?? []),
    // No /dev at all: CPython 3.11 takes randomness from getrandom(), and the host's device nodes
    // are not the sandbox's to chmod or utime.
    ...(tmpHostDir !== undefined ? ["--bind", tmpHostDir, "/tmp"] : ["--perms", "1777", "--size", String(limits.tmpfsBytes), "--tmpfs", "/tmp"]),
    "--chdir", "/tmp",
    "--remount-ro", "/",
    "--seccomp", String(seccompFd),
    ...command,
  );
  return args;
}

function basename(path: string): string {
  return path.slice(path.lastIndexOf("/") + 1);
}
