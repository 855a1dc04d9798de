import { closeSync, constants, fstatSync, lstatSync, mkdirSync, openSync, statSync, type Stats } from "node:fs";
import { isAbsolute, normalize } from "node:path";

/**
 * The one directory in which a root worker does anything on the host for its sandboxes: box
 * lock files in `<dir>/locks/<id>` (box-uids.ts), and the mount point over which each runner's
 * launcher mounts, in the runner's own mount namespace only, the tmpfs holding the box's /tmp and
 * the runner and library binds (box_launch.py). It must be root's, mode 0700, and no component of
 * its path may be a symlink. Configured by `OODLE_SANDBOX_STATE_DIR` (default
 * {@link DEFAULT_STATE_DIR}); only a worker running as root uses it.
 *
 * Every use opens the path one component at a time with `O_NOFOLLOW | O_DIRECTORY` (each step
 * relative to the previous descriptor, through `/proc/self/fd/<n>/<name>`: Node has no `openat`)
 * and checks the owner and mode with `fstat` on the descriptor it then uses.
 */
export const DEFAULT_STATE_DIR = "/run/oodle-sandbox";
/** The variable that moves the state directory. */
export const STATE_DIR_ENV = "OODLE_SANDBOX_STATE_DIR";

/** Thrown when the state directory (or a path the box uids must reach) is unsafe or unusable; the message names the path. */
export class SandboxStateDirError extends Error {
  constructor(
    readonly path: string,
    message: string,
  ) {
    super(message);
    this.name = "SandboxStateDirError";
  }
}

/**
 * The configured state directory: absolute and normalised.
 * @param env - the environment (process.env by default); an empty value counts as unset.
 * @throws SandboxStateDirError when the value is not an absolute path or is `/`.
 */
export function stateDirPath(env: NodeJS.ProcessEnv = process.env): string {
  const value = env[STATE_DIR_ENV] || DEFAULT_STATE_DIR;
  if (!isAbsolute(value)) throw new SandboxStateDirError(value, `${STATE_DIR_ENV} must be an absolute path, not ${JSON.stringify(value)}`);
  const path = normalize(value).replace(/\/+$/, "");
  if (path === "") throw new SandboxStateDirError(value, `${STATE_DIR_ENV} must not be /`);
  return path;
}

const DIR_FLAGS = constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW;

/** `path` relative to an open directory descriptor (the kernel resolves the magic link to the directory itself). */
export function under(dirFd: number, name: string): string {
  return `/proc/self/fd/${dirFd}/${name}`;
}

function describe(stat: Stats): string {
  return `owner uid ${stat.uid}, mode ${(stat.mode & 0o7777).toString(8).padStart(4, "0")}`;
}

function isSymlink(path: string): boolean {
  try {
    return lstatSync(path).isSymbolicLink();
  } catch {
    return false;
  }
}

function openStep(parentFd: number, name: string, shown: string): number {
  try {
    return openSync(under(parentFd, name), DIR_FLAGS);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    // O_DIRECTORY | O_NOFOLLOW on a symlink: ENOTDIR (ELOOP on some kernels).
    if (code === "ELOOP" || (code === "ENOTDIR" && isSymlink(under(parentFd, name)))) throw new SandboxStateDirError(shown, `${shown} is a symlink; the sandbox state directory's path must have none (set ${STATE_DIR_ENV} to a real path)`);
    if (code === "ENOTDIR") throw new SandboxStateDirError(shown, `${shown} is not a directory`);
    throw error;
  }
}

/**
 * Checks an ancestor of the state directory: a directory of root's that no other user may
 * change, except a sticky one (like /tmp), where the next component is checked for root's.
 */
function checkAncestor(fd: number, shown: string): void {
  const stat = fstatSync(fd);
  if (stat.uid !== 0) throw new SandboxStateDirError(shown, `${shown} (above the sandbox state directory) is not root's (${describe(stat)}): another user could replace what is under it`);
  if ((stat.mode & 0o022) !== 0 && (stat.mode & 0o1000) === 0) {
    throw new SandboxStateDirError(shown, `${shown} (above the sandbox state directory) is writable by other users and not sticky (${describe(stat)})`);
  }
  if ((stat.mode & 0o001) === 0) {
    throw new SandboxStateDirError(shown, `${shown} (above the sandbox state directory) is not traversable by other users (${describe(stat)}): the box uids must reach the state directory; chmod o+x ${shown} or set ${STATE_DIR_ENV} elsewhere`);
  }
}

/** Checks a directory the worker keeps its state in: root's, mode exactly `mode`. */
function checkOwn(fd: number, shown: string, mode: number): void {
  const stat = fstatSync(fd);
  if (!stat.isDirectory() || stat.uid !== 0 || (stat.mode & 0o7777) !== mode) {
    throw new SandboxStateDirError(
      shown,
      `the sandbox state directory ${shown} must be root's with mode ${mode.toString(8).padStart(4, "0")} (found ${describe(stat)}); remove it or set ${STATE_DIR_ENV} to another path, and restart`,
    );
  }
}

/**
 * Opens a directory of root's with mode `mode`, creating it (and only it: its parent must exist)
 * when missing, without following symlinks anywhere on the path, checking every ancestor
 * ({@link checkAncestor}) and the directory itself on the descriptor returned.
 * @param path - absolute, normalised.
 * @returns an open descriptor (O_RDONLY | O_DIRECTORY); the caller closes it.
 * @throws SandboxStateDirError naming the offending path (a symlink, not root's, a bad mode).
 */
export function openRootDir(path: string, mode = 0o700): number {
  const parts = path.split("/").filter(Boolean);
  let fd = openSync("/", DIR_FLAGS);
  let shown = "";
  try {
    checkAncestor(fd, "/");
    for (let i = 0; i < parts.length; i++) {
      const name = parts[i]!;
      shown += `/${name}`;
      const last = i === parts.length - 1;
      if (last) {
        try {
          mkdirSync(under(fd, name), { mode });
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
        }
      }
      const next = openStep(fd, name, shown);
      closeSync(fd);
      fd = next;
      if (last) checkOwn(fd, shown, mode);
      else checkAncestor(fd, shown);
    }
    return fd;
  } catch (error) {
    closeSync(fd);
    throw error;
  }
}

/**
 * Opens (creating when missing) the state directory and checks it; call before every use.
 * @returns an open descriptor of the state directory; the caller closes it.
 * @throws SandboxStateDirError naming the path when it is unsafe.
 */
export function openStateDir(path = stateDirPath()): number {
  return openRootDir(path, 0o700);
}

/**
 * Opens (creating when missing) `<state>/<name>`, root's with mode 0700, checked like the state directory.
 * @returns an open descriptor; the caller closes it.
 * @throws SandboxStateDirError naming the path when it is unsafe.
 */
export function openStateSubdir(name: string, path = stateDirPath()): number {
  const state = openStateDir(path);
  try {
    try {
      mkdirSync(under(state, name), { mode: 0o700 });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    }
    const fd = openStep(state, name, `${path}/${name}`);
    try {
      checkOwn(fd, `${path}/${name}`, 0o700);
    } catch (error) {
      closeSync(fd);
      throw error;
    }
    return fd;
  } finally {
    closeSync(state);
  }
}

/**
 * The first directory on `path` (its ancestors and itself when it is a directory) that a user
 * other than its owner and group cannot traverse (no `o+x`): the box uids cannot reach `path`
 * through it. Symlinks on the way are followed (this is what bwrap, running as a box uid, does).
 * @returns the directory and its mode, or undefined when every step is traversable.
 */
export function untraversableDir(path: string): { dir: string; stat: Stats } | undefined {
  const parts = path.split("/").filter(Boolean);
  let dir = "/";
  for (let i = 0; i <= parts.length; i++) {
    let stat: Stats;
    try {
      stat = statSync(dir);
    } catch {
      return undefined; // missing: the caller's own existence checks say so
    }
    if (stat.isDirectory() && (stat.mode & 0o001) === 0) return { dir, stat };
    if (i < parts.length) dir = dir === "/" ? `/${parts[i]}` : `${dir}/${parts[i]}`;
  }
  return undefined;
}

/** "owner uid N, mode 0700": for messages. */
export function describeStat(stat: Stats): string {
  return describe(stat);
}

/**
 * Creates (when missing) and checks the state directory, as a worker does at start.
 * @throws SandboxStateDirError naming the path when it is unsafe.
 */
export function checkStateDir(path = stateDirPath()): void {
  closeSync(openStateDir(path));
}
