import { spawn } from "node:child_process";
import { closeSync, constants, fstatSync, lstatSync, openSync } from "node:fs";
import { openStateSubdir, SandboxStateDirError, stateDirPath, under } from "./state-dir.js";

/**
 * Per-runner host uids, isolate's model: each sandbox "box" runs as its own unprivileged host uid
 * (and gid), box id `n` → uid `BOX_UID_BASE + n`. No passwd entry is needed: the kernel only
 * needs the number. So RLIMIT_NPROC (threads and processes) and every per-user kernel counter
 * (inotify, pending signals, pipe pages, epoll watches) count one runner, never the host's root or
 * another runner, and host-owned files bound into the jail are not the sandbox user's to change.
 *
 * A box id is held host-wide (every worker process on the machine shares the range) by an
 * exclusive `flock(2)` lock on `<state dir>/locks/<id>` (state-dir.ts: root's, mode 0700, checked
 * before each use). A flock lock belongs to the open file description: it is held for as long as
 * the worker keeps the descriptor open and is gone when the worker exits, however it exits, so a
 * dead holder never needs detecting and nothing a file contains means anything. Lock files are
 * root's (0600, checked with `fstat`), never deleted; after locking, the holder checks that the
 * file at the path is still the one it locked (a file replaced under it would let a second holder
 * lock the new one).
 *
 * Node has no flock/fcntl: the lock is taken by util-linux's `flock --nonblock 3` on the
 * worker's own descriptor, inherited as the child's fd 3 (the same open file description, so the
 * lock stays with the worker's descriptor when the child exits). That costs one short process
 * per box taken (per runner start, not per item), as the tmpfs mount did before.
 */
export const BOX_UID_BASE = 60_000;
/** Box ids 0 .. BOX_COUNT-1 (uids 60000-61023). */
export const BOX_COUNT = 1_024;
/** util-linux's flock(1). */
const FLOCK = "/usr/bin/flock";
/** flock's exit code when the lock is held elsewhere (`--conflict-exit-code`). */
const CONFLICT = 75;

/** A held box: its id and host uid/gid; call `release` once the sandbox has exited. */
export interface Box {
  id: number;
  uid: number;
  release(): void;
}

/** Thrown when every box id is taken (more live sandboxes on this host than {@link BOX_COUNT}). */
export class NoFreeBoxError extends Error {
  constructor() {
    super(`no free sandbox box: all ${BOX_COUNT} host uids from ${BOX_UID_BASE} are in use`);
    this.name = "NoFreeBoxError";
  }
}

let next = 0;

/** `<state dir>/locks`: where the lock files live. */
export function boxLockDir(stateDir = stateDirPath()): string {
  return `${stateDir}/locks`;
}

/** Takes an exclusive flock on `fd` without waiting: true when taken, false when held elsewhere. */
function flockNonBlocking(fd: number): Promise<boolean> {
  return new Promise((resolve, reject) => {
    const child = spawn(FLOCK, ["--nonblock", "--exclusive", "--conflict-exit-code", String(CONFLICT), "3"], {
      env: {},
      stdio: ["ignore", "ignore", "pipe", fd],
    });
    let stderr = "";
    child.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    child.on("error", reject);
    child.on("close", (code) => {
      if (code === 0) resolve(true);
      else if (code === CONFLICT) resolve(false);
      else reject(new Error(`${FLOCK} failed (exit code ${code}): ${stderr.trim()}`));
    });
  });
}

/** Opens `<locks>/<id>` (created root's, 0600) without following a symlink and checks it is a plain file of root's. */
function openLockFile(locksFd: number, id: number, shown: string): number {
  let fd: number;
  try {
    fd = openSync(under(locksFd, String(id)), constants.O_RDWR | constants.O_CREAT | constants.O_NOFOLLOW | constants.O_NONBLOCK, 0o600);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ELOOP") throw new SandboxStateDirError(shown, `the box lock ${shown} is a symlink`);
    throw error;
  }
  const stat = fstatSync(fd);
  if (!stat.isFile() || stat.uid !== 0 || (stat.mode & 0o7777) !== 0o600 || stat.nlink !== 1) {
    closeSync(fd);
    throw new SandboxStateDirError(shown, `the box lock ${shown} must be a file of root's with mode 0600 and one link (found owner uid ${stat.uid}, mode ${(stat.mode & 0o7777).toString(8)}, ${stat.nlink} links)`);
  }
  return fd;
}

/** True when the file at `<locks>/<id>` is still the one `fd` has open. */
function stillAtPath(locksFd: number, id: number, fd: number): boolean {
  try {
    const atPath = lstatSync(under(locksFd, String(id)));
    const held = fstatSync(fd);
    return atPath.ino === held.ino && atPath.dev === held.dev;
  } catch {
    return false;
  }
}

/**
 * Takes a free box id (scanning round-robin from the last one taken).
 * @throws NoFreeBoxError when all are held; SandboxStateDirError (naming the path) when the
 *   state directory, its `locks/` or a lock file is not root's with the right mode, or a symlink.
 */
export async function acquireBox(): Promise<Box> {
  const stateDir = stateDirPath();
  const locksFd = openStateSubdir("locks", stateDir);
  try {
    for (let i = 0; i < BOX_COUNT; i++) {
      const id = (next + i) % BOX_COUNT;
      const fd = openLockFile(locksFd, id, `${boxLockDir(stateDir)}/${id}`);
      let held = false;
      try {
        held = (await flockNonBlocking(fd)) && stillAtPath(locksFd, id, fd);
      } finally {
        if (!held) closeSync(fd);
      }
      if (!held) continue;
      next = (id + 1) % BOX_COUNT;
      let released = false;
      return {
        id,
        uid: BOX_UID_BASE + id,
        release() {
          if (released) return;
          released = true;
          closeSync(fd); // the lock goes with the last descriptor of its open file description
        },
      };
    }
  } finally {
    closeSync(locksFd);
  }
  throw new NoFreeBoxError();
}

/** True when this process can run sandboxes as other uids (it is root). */
export function canUseBoxUids(): boolean {
  return typeof process.getuid === "function" && process.getuid() === 0;
}
