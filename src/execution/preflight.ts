import { existsSync, readFileSync } from "node:fs";
import { execa } from "execa";
import { boxMountsUsable, sandboxCommand } from "./box-launch.js";
import type { SandboxPaths } from "./bwrap-args.js";
import { acquireBox, BOX_COUNT, BOX_UID_BASE, canUseBoxUids, type Box } from "./box-uids.js";
import { resolveLimits } from "./limits.js";
import { describeStat, untraversableDir } from "./state-dir.js";

/** Thrown when this machine cannot run the sandbox; `reason` says what is missing. */
export class PreflightError extends Error {
  constructor(readonly reason: string) {
    super(`the evaluator sandbox is not usable on this machine: ${reason}`);
    this.name = "PreflightError";
  }
}

// Runs inside the real sandbox (same arguments and seccomp filter as a runner) and checks that
// each layer is in force. Prints "ok" or the first layer that is missing.
const CHECK = `
import os, socket
def check():
    if os.getuid() != 65534: return "user namespace: uid is %d, not 65534" % os.getuid()
    if os.path.exists("/proc/self"): return "/proc is mounted"
    if os.path.exists("/etc/passwd"): return "/etc is visible"
    if os.environ.get("PATH") or len(os.environ) > 1: return "environment is not empty: %s" % sorted(os.environ)
    if os.path.exists("/dev/null"): return "/dev is visible"
    if len(os.urandom(16)) != 16: return "no randomness (getrandom)"
    try:
        socket.socket(socket.AF_INET, socket.SOCK_STREAM).close()
        return "seccomp: socket(AF_INET) was allowed"
    except PermissionError:
        pass
    try:
        open("/x", "w")
        return "root is writable"
    except OSError:
        pass
    return "ok"
print(check())
`;

/**
 * Checks that bubblewrap, user namespaces, seccomp, the interpreter and the compiled filter are all
 * usable, by starting a real sandbox and probing it. Call at worker start: fail closed.
 * @param paths - host paths (see `defaultSandboxPaths`).
 * @param seccompProgram - the compiled base filter.
 * @throws PreflightError saying which layer is missing.
 */
export async function preflight(paths: SandboxPaths, seccompProgram: Uint8Array): Promise<void> {
  for (const [what, path] of [
    ["bubblewrap", paths.bwrap],
    ["python3.11", paths.python],
    ["python3-seccomp", paths.seccompModule],
    ["the runner", `${paths.runnerDir}/runner.py`],
    ["python-lib", `${paths.pythonLibDir}/oodle_eval/v1/__init__.py`],
  ] as const) {
    if (!existsSync(path)) throw new PreflightError(`${what} not found at ${path}`);
  }
  if (seccompProgram.length < 8 || seccompProgram.length % 8 !== 0) {
    throw new PreflightError("the compiled seccomp filter is empty or corrupt (run sandbox/seccomp/build.sh)");
  }
  const status = existsSync("/proc/self/status") ? readFileSync("/proc/self/status", "utf8") : "";
  if (status && !/^Seccomp:/m.test(status)) throw new PreflightError("the kernel has no seccomp support");
  // As a runner would run: on its own unprivileged host uid (so unprivileged user namespaces must
  // work), through the launcher when the worker is root (box-launch.ts). The state directory is
  // checked (created when missing) first: an unsafe one stops the worker, naming it.
  let box: Box | undefined;
  let mounts = false;
  if (canUseBoxUids()) {
    try {
      mounts = await boxMountsUsable(paths.python, paths);
      box = await acquireBox();
    } catch (error) {
      throw new PreflightError(error instanceof Error ? error.message : String(error));
    }
    try {
      checkTraversable(paths, mounts);
    } catch (error) {
      box.release();
      throw error;
    }
  }
  const command = sandboxCommand(paths, resolveLimits(), 4, box, mounts, [paths.python, "-I", "-S", "-c", CHECK]);
  const result = await execa(command.file, command.args, {
    env: {},
    extendEnv: false,
    ...(command.uid !== undefined ? { uid: command.uid, gid: command.uid } : {}),
    stdio: ["ignore", "pipe", "pipe", "ignore", seccompProgram],
    reject: false,
    timeout: 20_000,
    killSignal: "SIGKILL",
  }).finally(() => box?.release());
  const out = String(result.stdout ?? "").trim();
  if (out !== "ok") {
    const stderr = String(result.stderr ?? "").trim();
    const launcher = /^box_launch: (.*)$/m.exec(stderr)?.[1];
    if (launcher) throw new PreflightError(`the sandbox launcher stopped: ${launcher}`);
    const source = /^bwrap: Can't find source path (.*): (Permission denied|No such file or directory)$/m.exec(stderr);
    if (source) throw new PreflightError(`bubblewrap, running as a box uid, cannot reach ${source[1]}: ${source[2]} (see sandbox/README.md)`);
    const why = out || stderr.slice(0, 500) || `bwrap exited with ${result.exitCode}`;
    throw new PreflightError(`${why} (bubblewrap needs user namespaces and seccomp; see sandbox/README.md)`);
  }
  // Byte-compile python-lib once on the host (trusted code) so runners do not recompile it.
  await execa(paths.python, ["-I", "-S", "-m", "compileall", "-q", `${paths.pythonLibDir}/oodle_eval`, `${paths.pythonLibDir}/sandbox_shims`], {
    env: {},
    extendEnv: false,
    reject: false,
  });
}

/**
 * Checks that the box uids (which are neither owner nor group of anything on the host) can
 * traverse to every path bwrap binds from the host as the box uid: the interpreter, the system
 * directories, the seccomp module, the curated packages, and (without the launcher's mounts) the
 * runner and python-lib in the checkout.
 * @throws PreflightError naming the first directory they cannot enter and how to fix it.
 */
export function checkTraversable(paths: SandboxPaths, mounts: boolean): void {
  const sources = [paths.python, ...paths.systemDirs, paths.seccompModule, ...(paths.packageBinds ?? []).map((b) => b.source)];
  if (!mounts) sources.push(paths.runnerDir, paths.pythonLibDir);
  for (const source of sources) {
    const blocked = untraversableDir(source);
    if (!blocked) continue;
    throw new PreflightError(
      `the sandbox's box uids (${BOX_UID_BASE}-${BOX_UID_BASE + BOX_COUNT - 1}) cannot enter ${blocked.dir} (${describeStat(blocked.stat)}), so bubblewrap cannot bind ${source}: ` +
        `make it traversable (chmod o+x ${blocked.dir})${mounts ? "" : " or move the checkout under directories other users may enter"}`,
    );
  }
}
