import { join } from "node:path";
import { execa } from "execa";
import type { Logger } from "../lib/logger.js";
import { BOX_UID_BASE, type Box } from "./box-uids.js";
import { buildBwrapArgs, type SandboxPaths } from "./bwrap-args.js";
import type { Limits } from "./limits.js";
import { REPO_ROOT } from "./paths.js";
import { checkStateDir, SandboxStateDirError, stateDirPath } from "./state-dir.js";

/**
 * How a sandbox process is started (see box_launch.py for the launcher's steps):
 * - a worker that is not root: bwrap as the worker's own uid, bwrap's own tmpfs at /tmp;
 * - a root worker (box uids, box-uids.ts) that may mount: `box_launch.py` as root, which makes a
 *   private mount namespace, mounts a tmpfs over the state directory (state-dir.ts) with the box's
 *   /tmp (inode cap) and read-only binds of the runner and python-lib in it, becomes the box uid
 *   and execs bwrap, which binds those. Nothing is mounted in the host's namespace, and the box
 *   uid reaches the runner and python-lib whatever the modes of the checkout's parents;
 * - a root worker that may not mount (e.g. a container without CAP_SYS_ADMIN): bwrap as the box
 *   uid, bwrap's tmpfs (no inode cap within an item), the runner and python-lib bound from the
 *   checkout (preflight then checks that the box uids can traverse to them).
 */
export const LAUNCHER = join(REPO_ROOT, "src", "execution", "box_launch.py");

/** Launcher exit codes (box_launch.py). */
const EXIT_UNSAFE = 121;
const EXIT_NO_PRIVILEGE = 122;

/** What to exec for one sandbox. */
export interface SandboxCommand {
  file: string;
  args: string[];
  /** Set when the worker starts the process directly as the box uid (no launcher). */
  uid?: number;
}

/** Paths of the launcher's view, inside the state directory (its mount namespace only). */
export function viewPaths(stateDir: string): { tmp: string; runner: string; lib: string } {
  return { tmp: `${stateDir}/tmp`, runner: `${stateDir}/runner`, lib: `${stateDir}/lib` };
}

/**
 * The command that starts one sandbox.
 * @param box - the held box, or undefined when the worker is not root.
 * @param mounts - {@link boxMountsUsable}'s answer (only read when `box` is set).
 * @param command - what runs inside (buildBwrapArgs' default: the runner).
 */
export function sandboxCommand(
  paths: SandboxPaths,
  limits: Pick<Limits, "tmpfsBytes" | "tmpfsInodes">,
  seccompFd: number,
  box: Box | undefined,
  mounts: boolean,
  command?: string[],
): SandboxCommand {
  if (!box) return { file: paths.bwrap, args: buildBwrapArgs(paths, limits, seccompFd, command) };
  if (!mounts) return { file: paths.bwrap, args: buildBwrapArgs(paths, limits, seccompFd, command), uid: box.uid };
  const stateDir = stateDirPath();
  const view = viewPaths(stateDir);
  const inside = buildBwrapArgs({ ...paths, runnerDir: view.runner, pythonLibDir: view.lib }, limits, seccompFd, command, view.tmp);
  return {
    file: paths.python,
    args: [
      "-I", "-S", LAUNCHER,
      "--state", stateDir,
      "--uid", String(box.uid),
      "--tmpfs-bytes", String(limits.tmpfsBytes),
      "--tmpfs-inodes", String(limits.tmpfsInodes),
      "--runner", paths.runnerDir,
      "--lib", paths.pythonLibDir,
      "--", paths.bwrap, ...inside,
    ],
  };
}

let probed: { key: string; usable: Promise<boolean> } | undefined;

/**
 * Whether this root worker may make the launcher's mounts: runs `box_launch.py --probe` once per
 * process and state directory (the state directory is checked first). When it may not (EPERM),
 * says so once on `logger` and the sandbox falls back to bwrap's own tmpfs.
 * @param python - the host interpreter (paths.python).
 * @throws SandboxStateDirError naming the path when the state directory is unsafe.
 */
export function boxMountsUsable(python: string, paths: Pick<SandboxPaths, "runnerDir" | "pythonLibDir">, logger?: Logger): Promise<boolean> {
  const stateDir = stateDirPath();
  checkStateDir(stateDir); // creates and checks it (throws naming the path)
  const key = `${python}\0${stateDir}`;
  if (probed?.key === key) return probed.usable;
  const usable = (async () => {
    const result = await execa(
      python,
      ["-I", "-S", LAUNCHER, "--probe", "--state", stateDir, "--uid", String(BOX_UID_BASE), "--tmpfs-bytes", "65536", "--tmpfs-inodes", "16", "--runner", paths.runnerDir, "--lib", paths.pythonLibDir],
      { env: {}, extendEnv: false, reject: false, timeout: 20_000 },
    );
    if (result.exitCode === 0 && String(result.stdout).trim() === "ok") return true;
    const why = String(result.stderr).trim() || `exit code ${result.exitCode}`;
    if (result.exitCode === EXIT_UNSAFE) throw new SandboxStateDirError(stateDir, why.replace(/^box_launch: /, ""));
    if (result.exitCode === EXIT_NO_PRIVILEGE) {
      logger?.warn({ err: why }, "sandbox: no private mounts (not allowed to mount), so no inode cap on /tmp within an item (bwrap's tmpfs) and the runner is bound from the checkout");
      return false;
    }
    throw new Error(`the sandbox launcher failed: ${why}`);
  })();
  usable.catch(() => {
    if (probed?.usable === usable) probed = undefined; // try again next time
  });
  probed = { key, usable };
  return usable;
}
