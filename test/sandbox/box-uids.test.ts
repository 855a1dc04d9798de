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
    // (Never fills the range: other test files, and other workers on this host, hold boxes at the
    // same time; so the ids planted here are ones no lock file holds right now.)
    const free = (from: number) => {
      for (let i = 0; i < BOX_COUNT; i++) if (!existsSync(join(BOX_LOCK_DIR, String((from + i) % BOX_COUNT)))) return (from + i) % BOX_COUNT;
      throw new Error("no free box id");
    };
    let b: ReturnType<typeof acquireBox> | undefined;
    let staleId = -1;
    for (let attempt = 0; attempt < 20 && !b; attempt++) {
      const a = acquireBox();
      staleId = (a.id + 1) % BOX_COUNT; // the next id the scan tries
      a.release();
      try {
        writeFileSync(join(BOX_LOCK_DIR, String(staleId)), "2147483646", { flag: "wx" }); // no such process
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === "EEXIST") continue; // held by a live sandbox: try again
        throw error;
      }
      b = acquireBox();
    }
    try {
      expect(b?.id).toBe(staleId);
      expect(readFileSync(join(BOX_LOCK_DIR, String(staleId)), "utf8")).toBe(String(process.pid));
    } finally {
      b?.release();
    }
    const liveId = free((staleId + 1) % BOX_COUNT);
    const livePath = join(BOX_LOCK_DIR, String(liveId));
    writeFileSync(livePath, "1", { flag: "wx" }); // pid 1 is alive
    const c = acquireBox();
    try {
      expect(c.id).not.toBe(liveId);
    } finally {
      c.release();
      unlinkSync(livePath);
    }
  });
});
