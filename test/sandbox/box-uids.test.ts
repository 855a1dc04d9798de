// Box ids (box-uids.ts): flock locks on root-owned files in the state directory's locks/, held for
// as long as the holder keeps its descriptor, gone with the holder; a file's contents mean nothing.
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { acquireBox, BOX_COUNT, BOX_UID_BASE, boxLockDir, canUseBoxUids } from "../../src/execution/box-uids.js";
import { STATE_DIR_ENV } from "../../src/execution/state-dir.js";

/** True when an exclusive flock on `path` can be taken right now by another process. */
function lockableElsewhere(path: string): boolean {
  return spawnSync("/usr/bin/flock", ["--nonblock", "--exclusive", "--conflict-exit-code", "75", path, "true"]).status === 0;
}

describe.runIf(canUseBoxUids())("per-runner host uids (box ids)", () => {
  let stateDir: string;
  let before: string | undefined;
  beforeAll(() => {
    // A private state directory (root's, 0700: what mkdtemp makes) so that this file may fill the range.
    stateDir = mkdtempSync(join(tmpdir(), "oodle-box-uids-"));
    before = process.env[STATE_DIR_ENV];
    process.env[STATE_DIR_ENV] = stateDir;
  });
  afterAll(() => {
    if (before === undefined) delete process.env[STATE_DIR_ENV];
    else process.env[STATE_DIR_ENV] = before;
    rmSync(stateDir, { recursive: true, force: true });
  });

  it("hands out distinct unprivileged uids in the box range, each a lock on a root-owned 0600 file, free again on release", async () => {
    const a = await acquireBox();
    const b = await acquireBox();
    const paths = [a, b].map((box) => join(boxLockDir(stateDir), String(box.id)));
    try {
      expect(a.uid).not.toBe(b.uid);
      for (const box of [a, b]) {
        expect(box.uid).toBe(BOX_UID_BASE + box.id);
        expect(box.id).toBeGreaterThanOrEqual(0);
        expect(box.id).toBeLessThan(BOX_COUNT);
      }
      for (const path of paths) {
        const stat = statSync(path);
        expect([stat.uid, stat.mode & 0o7777]).toEqual([0, 0o600]);
        expect(lockableElsewhere(path)).toBe(false);
      }
      const dir = statSync(boxLockDir(stateDir));
      expect([dir.uid, dir.mode & 0o7777]).toEqual([0, 0o700]);
    } finally {
      a.release();
      b.release();
    }
    for (const path of paths) {
      expect(existsSync(path)).toBe(true); // never deleted
      expect(lockableElsewhere(path)).toBe(true);
    }
  });

  it("skips a box whose lock another process holds, and takes it once that process is gone (SIGKILL)", async () => {
    const first = await acquireBox();
    const second = await acquireBox(); // so that its lock file exists
    const id = second.id;
    first.release();
    second.release();
    const path = join(boxLockDir(stateDir), String(id));
    // Another holder of that id: a process holding the lock (as another worker would) while it sleeps.
    const holder = spawn("python3", ["-c", "import fcntl, os, sys, time\nfd = os.open(sys.argv[1], os.O_RDWR)\nfcntl.flock(fd, fcntl.LOCK_EX)\ntime.sleep(60)", path], { stdio: "ignore" });
    try {
      await waitFor(() => !lockableElsewhere(path));
      const skipped = await acquireBox();
      try {
        expect(skipped.id).not.toBe(id);
      } finally {
        skipped.release();
      }
    } finally {
      holder.kill("SIGKILL");
    }
    await new Promise((resolve) => holder.once("exit", resolve));
    // The lock went with its holder: nothing to detect, no pid to check.
    await waitFor(() => lockableElsewhere(path));
  });

  it("ignores what lock files contain: 1,024 files naming pid 1 (the old pid files) do not starve it", async () => {
    const dir = boxLockDir(stateDir);
    for (let id = 0; id < BOX_COUNT; id++) {
      const path = join(dir, String(id));
      writeFileSync(path, "1", { mode: 0o600 });
    }
    expect(readdirSync(dir)).toHaveLength(BOX_COUNT);
    const box = await acquireBox();
    box.release();
    expect(box.uid).toBeGreaterThanOrEqual(BOX_UID_BASE);
  });

  it("refuses a lock file that is not root's 0600 plain file, naming it", async () => {
    const first = await acquireBox();
    const id = (first.id + 1) % BOX_COUNT;
    first.release();
    const path = join(boxLockDir(stateDir), String(id));
    rmSync(path);
    writeFileSync(path, "", { mode: 0o666 });
    spawnSync("chmod", ["0666", path]);
    await expect(acquireBox()).rejects.toThrow(`the box lock ${path} must be a file of root's with mode 0600`);
    rmSync(path);
    const box = await acquireBox(); // recreated root's 0600
    box.release();
    expect(statSync(path).mode & 0o7777).toBe(0o600);
  });
});

async function waitFor(check: () => boolean): Promise<void> {
  for (let i = 0; i < 500 && !check(); i++) await new Promise((resolve) => setTimeout(resolve, 20));
  expect(check()).toBe(true);
}
