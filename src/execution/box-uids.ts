import { closeSync, mkdirSync, openSync, readFileSync, statSync, unlinkSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/**
 * Per-runner host uids, isolate's model: each sandbox "box" runs as its own unprivileged host uid
 * (and gid), box id `n` → uid `BOX_UID_BASE + n`. No passwd entry is needed: the kernel only
 * needs the number. So RLIMIT_NPROC (threads and processes) and every per-user kernel counter
 * (inotify, pending signals, pipe pages, epoll watches) count one runner, never the host's root or
 * another runner, and host-owned files bound into the jail are not the sandbox user's to change.
 *
 * A box id is held host-wide (every worker process on the machine shares the range) by a lock file
 * `<dir>/<id>` holding the holder's pid, created with O_EXCL; a file whose pid is gone is taken
 * over. Released when the runner's process has exited, so no two live sandboxes share a uid.
 */
export const BOX_UID_BASE = 60_000;
/** Box ids 0 .. BOX_COUNT-1 (uids 60000-61023). */
export const BOX_COUNT = 1_024;
/** Where the lock files live (root-only directory). */
export const BOX_LOCK_DIR = join(tmpdir(), "oodle-sandbox-boxes");

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
let dirReady = false;

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

function tryLock(path: string): boolean {
  try {
    const fd = openSync(path, "wx", 0o600);
    writeSync(fd, String(process.pid));
    closeSync(fd);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
  }
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch {
    return false; // released while we looked: another caller may be taking it; try the next id
  }
  // An empty file is a holder between its open and its write: held, unless it has stayed empty
  // long enough that the holder must have died in between.
  if (text === "") return emptyForLong(path) && takeOver(path);
  const holder = Number(text);
  if (Number.isInteger(holder) && holder > 0 && alive(holder)) return false;
  return takeOver(path);
}

/** How long a lock file may stay empty before it counts as left by a dead holder (ms). */
const EMPTY_LOCK_GRACE_MS = 10_000;

function emptyForLong(path: string): boolean {
  try {
    return Date.now() - statSync(path).mtimeMs > EMPTY_LOCK_GRACE_MS;
  } catch {
    return false;
  }
}

function takeOver(path: string): boolean {
  try {
    unlinkSync(path); // the holder died without releasing it
  } catch {
    return false;
  }
  return tryLock(path);
}

/**
 * Takes a free box id (scanning round-robin from the last one taken).
 * @throws NoFreeBoxError when all are held by live processes.
 */
export function acquireBox(): Box {
  if (!dirReady) {
    mkdirSync(BOX_LOCK_DIR, { recursive: true, mode: 0o700 });
    dirReady = true;
  }
  for (let i = 0; i < BOX_COUNT; i++) {
    const id = (next + i) % BOX_COUNT;
    const path = join(BOX_LOCK_DIR, String(id));
    if (!tryLock(path)) continue;
    next = (id + 1) % BOX_COUNT;
    let released = false;
    return {
      id,
      uid: BOX_UID_BASE + id,
      release() {
        if (released) return;
        released = true;
        try {
          unlinkSync(path);
        } catch {
          // already gone
        }
      },
    };
  }
  throw new NoFreeBoxError();
}

/** True when this process can run sandboxes as other uids (it is root). */
export function canUseBoxUids(): boolean {
  return typeof process.getuid === "function" && process.getuid() === 0;
}
