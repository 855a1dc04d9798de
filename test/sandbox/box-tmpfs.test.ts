// The per-box /tmp (box-tmpfs.ts): a tmpfs the root worker mounts with an inode cap, owned by the
// box uid and reachable by no other host user; gone (unmounted, directories removed) on release.
import { existsSync, statSync, statfsSync } from "node:fs";
import { dirname } from "node:path";
import { describe, expect, it } from "vitest";
import { acquireBox, canUseBoxUids } from "../../src/execution/box-uids.js";
import { isMountPoint, mountBoxTmpfs } from "../../src/execution/box-tmpfs.js";
import { execa } from "execa";

describe.runIf(canUseBoxUids())("per-box tmpfs", () => {
  it("mounts size and nr_inodes as given, owned by the box uid, mode 1777 under a 0700 box directory; release unmounts it", async () => {
    const box = acquireBox();
    try {
      const tmpfs = await mountBoxTmpfs(box, { tmpfsBytes: 1 << 20, tmpfsInodes: 100 });
      expect(isMountPoint(tmpfs.path)).toBe(true);
      const fs = statfsSync(tmpfs.path);
      expect(fs.files).toBe(100);
      expect(fs.blocks * fs.bsize).toBe(1 << 20);
      const root = statSync(tmpfs.path);
      expect([root.uid, root.gid, root.mode & 0o7777]).toEqual([box.uid, box.uid, 0o1777]);
      const boxDir = statSync(dirname(tmpfs.path));
      expect([boxDir.uid, boxDir.mode & 0o777]).toEqual([box.uid, 0o700]);
      await tmpfs.release();
      expect(isMountPoint(tmpfs.path)).toBe(false);
      expect(existsSync(dirname(tmpfs.path))).toBe(false);
    } finally {
      box.release();
    }
  });

  it("takes over a mount that a dead worker left on the same box id", async () => {
    const box = acquireBox();
    try {
      const stale = await mountBoxTmpfs(box, { tmpfsBytes: 1 << 20, tmpfsInodes: 50 });
      // Mounted again without a release (what a worker killed with SIGKILL leaves behind).
      const fresh = await mountBoxTmpfs(box, { tmpfsBytes: 1 << 20, tmpfsInodes: 70 });
      expect(fresh.path).toBe(stale.path);
      expect(statfsSync(fresh.path).files).toBe(70);
      const mounts = (await execa("findmnt", ["-n", "-o", "TARGET", fresh.path], { reject: false })).stdout.split("\n").filter(Boolean);
      expect(mounts).toHaveLength(1);
      await fresh.release();
      expect(isMountPoint(fresh.path)).toBe(false); // nothing left mounted underneath
    } finally {
      box.release();
    }
  });
});
