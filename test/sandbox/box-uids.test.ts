import { existsSync, readFileSync, unlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { acquireBox, BOX_COUNT, BOX_LOCK_DIR, BOX_UID_BASE } from "../../src/execution/box-uids.js";

describe("per-runner host uids (box ids)", () => {
  it("hands out distinct unprivileged uids in the box range and frees them on release", () => {
    const a = acquireBox();
    const b = acquireBox();
    try {
      expect(a.uid).not.toBe(b.uid);
      for (const box of [a, b]) {
        expect(box.uid).toBe(BOX_UID_BASE + box.id);
        expect(box.id).toBeGreaterThanOrEqual(0);
        expect(box.id).toBeLessThan(BOX_COUNT);
        expect(existsSync(join(BOX_LOCK_DIR, String(box.id)))).toBe(true);
      }
    } finally {
      a.release();
      b.release();
    }
    expect(existsSync(join(BOX_LOCK_DIR, String(a.id)))).toBe(false);
  });

  it("takes over a box whose holder died, and skips one whose holder lives", () => {
    // Other test files hold boxes at the same time, so the planted lock files go on ids that are
    // free (retrying when another process takes one first) and the range is never filled.
    const stale = plantAfterFreshBox("2147483646"); // no such process
    const b = acquireBox();
    try {
      expect(b.id).toBe(stale.id);
      expect(readFileSync(stale.path, "utf8")).toBe(String(process.pid));
    } finally {
      b.release();
    }
    const live = plantAfterFreshBox("1"); // pid 1 is alive
    const c = acquireBox();
    try {
      expect(c.id).not.toBe(live.id);
    } finally {
      c.release();
      unlinkSync(live.path);
    }
  });

  it("leaves a lock file that its holder has opened but not yet written", () => {
    const empty = plantAfterFreshBox("");
    const d = acquireBox();
    try {
      expect(d.id).not.toBe(empty.id);
      expect(readFileSync(empty.path, "utf8")).toBe("");
    } finally {
      d.release();
      unlinkSync(empty.path);
    }
  });
});

/**
 * Takes a box and releases it, then writes `holder` into the lock file of the id after it (the id
 * the next scan of this process tries first); retries when that id is held by another process.
 */
function plantAfterFreshBox(holder: string): { id: number; path: string } {
  for (let attempt = 0; attempt < 50; attempt++) {
    const a = acquireBox();
    const id = (a.id + 1) % BOX_COUNT;
    const path = join(BOX_LOCK_DIR, String(id));
    a.release();
    try {
      writeFileSync(path, holder, { flag: "wx" });
      return { id, path };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    }
  }
  throw new Error("no free box id to plant a lock file on after 50 attempts");
}
