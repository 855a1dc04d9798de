// The root worker's state directory (state-dir.ts): root's, 0700, reached without a symlink.
import { chmodSync, chownSync, closeSync, fstatSync, mkdirSync, mkdtempSync, rmSync, statSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { DEFAULT_STATE_DIR, openStateDir, SandboxStateDirError, stateDirPath, untraversableDir } from "../../src/execution/state-dir.js";
import { canUseBoxUids } from "../../src/execution/box-uids.js";

describe("sandbox state directory", () => {
  it("is OODLE_SANDBOX_STATE_DIR, absolute and normalised, default /run/oodle-sandbox", () => {
    expect(stateDirPath({})).toBe(DEFAULT_STATE_DIR);
    expect(stateDirPath({ OODLE_SANDBOX_STATE_DIR: "" })).toBe("/run/oodle-sandbox");
    expect(stateDirPath({ OODLE_SANDBOX_STATE_DIR: "/var/lib//oodle/sandbox/" })).toBe("/var/lib/oodle/sandbox");
    expect(() => stateDirPath({ OODLE_SANDBOX_STATE_DIR: "run/x" })).toThrow('OODLE_SANDBOX_STATE_DIR must be an absolute path, not "run/x"');
    expect(() => stateDirPath({ OODLE_SANDBOX_STATE_DIR: "/" })).toThrow("OODLE_SANDBOX_STATE_DIR must not be /");
  });

  describe.runIf(canUseBoxUids())("as root", () => {
    const base = mkdtempSync(join(tmpdir(), "oodle-state-dir-"));
    chmodSync(base, 0o755);
    afterAll(() => rmSync(base, { recursive: true, force: true }));

    it("creates it root's with mode 0700 and opens it", () => {
      const path = join(base, "fresh");
      const fd = openStateDir(path);
      const stat = fstatSync(fd);
      closeSync(fd);
      expect([stat.uid, stat.mode & 0o7777]).toEqual([0, 0o700]);
      expect(statSync(path).ino).toBe(stat.ino);
    });

    it("refuses one that is not root's, naming it and its owner and mode", () => {
      const path = join(base, "theirs");
      mkdirSync(path, { mode: 0o700 });
      chownSync(path, 65534, 65534);
      expect(() => openStateDir(path)).toThrow(new SandboxStateDirError(path, `the sandbox state directory ${path} must be root's with mode 0700 (found owner uid 65534, mode 0700); remove it or set OODLE_SANDBOX_STATE_DIR to another path, and restart`));
    });

    it("refuses one of root's with another mode", () => {
      const path = join(base, "open");
      mkdirSync(path);
      chmodSync(path, 0o755);
      expect(() => openStateDir(path)).toThrow(`${path} must be root's with mode 0700 (found owner uid 0, mode 0755)`);
    });

    it("refuses a symlink at the directory or above it", () => {
      const real = join(base, "real");
      mkdirSync(join(real, "state"), { recursive: true, mode: 0o700 });
      chmodSync(real, 0o755);
      symlinkSync(join(real, "state"), join(base, "link"));
      expect(() => openStateDir(join(base, "link"))).toThrow(`${join(base, "link")} is a symlink`);
      symlinkSync(real, join(base, "uplink"));
      expect(() => openStateDir(join(base, "uplink", "state"))).toThrow(`${join(base, "uplink")} is a symlink`);
    });

    it("refuses a parent other users may write to (not sticky), or one that is not root's", () => {
      const parent = join(base, "shared");
      mkdirSync(parent);
      chmodSync(parent, 0o777);
      expect(() => openStateDir(join(parent, "state"))).toThrow(`${parent} (above the sandbox state directory) is writable by other users and not sticky (owner uid 0, mode 0777)`);
      chmodSync(parent, 0o1777); // like /tmp: the state directory itself is then checked for root's
      const fd = openStateDir(join(parent, "state"));
      closeSync(fd);
      const owned = join(base, "owned");
      mkdirSync(owned, { mode: 0o755 });
      chownSync(owned, 65534, 65534);
      expect(() => openStateDir(join(owned, "state"))).toThrow(`${owned} (above the sandbox state directory) is not root's (owner uid 65534, mode 0755)`);
    });

    it("refuses a parent the box uids cannot traverse, saying so", () => {
      const parent = join(base, "private");
      mkdirSync(parent, { mode: 0o700 });
      expect(() => openStateDir(join(parent, "state"))).toThrow(`${parent} (above the sandbox state directory) is not traversable by other users (owner uid 0, mode 0700)`);
      expect(untraversableDir(join(parent, "x", "y"))?.dir).toBe(parent);
      expect(untraversableDir("/usr/bin/python3.11")).toBeUndefined();
    });
  });
});
