// A root worker's sandbox start (box-launch.ts, box_launch.py): the box's /tmp (size and inode
// cap, the box uid's, 1777) and the runner and python-lib binds live in the runner's own mount
// namespace, in a tmpfs mounted over the state directory there; nothing reaches the host's mount
// table; the box uid reaches the runner wherever the checkout is (finding 9 of issue 26).
import { chmodSync, cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { boxMountsUsable, LAUNCHER, sandboxCommand } from "../../src/execution/box-launch.js";
import { acquireBox, canUseBoxUids } from "../../src/execution/box-uids.js";
import { defaultSandboxPaths, REPO_ROOT, seccompFilterPath } from "../../src/execution/paths.js";
import { checkTraversable, preflight } from "../../src/execution/preflight.js";
import { stateDirPath } from "../../src/execution/state-dir.js";

const PROBE = `
import json, os
st = os.statvfs("/tmp"); me = os.stat("/tmp")
print(json.dumps({"inodes": st.f_files, "bytes": st.f_blocks * st.f_frsize, "mode": oct(me.st_mode & 0o7777),
                  "runner": os.path.exists("/sandbox/runner/runner.py"), "lib": os.path.exists("/sandbox/lib/oodle_eval/v1/__init__.py")}))
`;

function hostMounts(): string {
  return readFileSync("/proc/self/mountinfo", "utf8");
}

describe.runIf(canUseBoxUids())("root worker's sandbox launch", () => {
  const paths = defaultSandboxPaths();
  let seccomp: Uint8Array;
  let scratch: string;
  beforeAll(() => {
    seccomp = readFileSync(seccompFilterPath());
    scratch = mkdtempSync(join(tmpdir(), "oodle-box-launch-"));
  });
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  async function runProbe(runPaths = paths): Promise<{ result: Awaited<ReturnType<typeof execa>>; stdout: string }> {
    expect(await boxMountsUsable(paths.python, runPaths)).toBe(true);
    const box = await acquireBox();
    try {
      const command = sandboxCommand(runPaths, { tmpfsBytes: 1 << 20, tmpfsInodes: 100 }, 4, box, true, [paths.python, "-I", "-S", "-c", PROBE]);
      expect(command.file).toBe(paths.python);
      expect(command.args.slice(0, 3)).toEqual(["-I", "-S", LAUNCHER]);
      const result = await execa(command.file, command.args, { env: {}, extendEnv: false, stdio: ["ignore", "pipe", "pipe", "ignore", seccomp], reject: false });
      return { result, stdout: String(result.stdout) };
    } finally {
      box.release();
    }
  }

  it("gives /tmp the size and nr_inodes asked for, mode 1777, and binds the runner and python-lib, with nothing in the host's mount table", async () => {
    const { result, stdout } = await runProbe();
    expect(result.exitCode).toBe(0);
    expect(JSON.parse(stdout)).toEqual({ inodes: 100, bytes: 1 << 20, mode: "0o1777", runner: true, lib: true });
    expect(hostMounts()).not.toMatch(/ oodle-box-(view|tmp) /);
    expect(hostMounts()).not.toContain(` ${stateDirPath()} `);
  });

  it("runs a checkout that sits under a directory other users cannot enter (mktemp -d, mode 0700)", async () => {
    const hidden = scratch; // what mktemp -d makes: root's, 0700
    const checkout = join(hidden, "checkout");
    cpSync(join(REPO_ROOT, "sandbox"), join(checkout, "sandbox"), { recursive: true });
    cpSync(join(REPO_ROOT, "python-lib"), join(checkout, "python-lib"), { recursive: true });
    expect(statSync(hidden).mode & 0o777).toBe(0o700);
    const moved = { ...paths, runnerDir: join(checkout, "sandbox"), pythonLibDir: join(checkout, "python-lib") };
    const { result, stdout } = await runProbe(moved);
    expect(result.exitCode).toBe(0);
    expect(JSON.parse(stdout)).toMatchObject({ runner: true, lib: true });
    await expect(preflight(moved, seccomp)).resolves.toBeUndefined();
    // Without the launcher's mounts (a root worker not allowed to mount), start-up names the directory.
    expect(() => checkTraversable(moved, false)).toThrow(
      `the evaluator sandbox is not usable on this machine: the sandbox's box uids (60000-61023) cannot enter ${hidden} (owner uid 0, mode 0700), so bubblewrap cannot bind ${moved.runnerDir}: make it traversable (chmod o+x ${hidden}) or move the checkout under directories other users may enter`,
    );
    expect(() => checkTraversable(moved, true)).not.toThrow();
  });

  it("the launcher itself refuses a state directory that is not root's 0700, naming it (exit 121)", async () => {
    const bad = join(scratch, "bad-state");
    mkdirSync(bad, { mode: 0o755 });
    chmodSync(bad, 0o755);
    const result = await execa(paths.python, ["-I", "-S", LAUNCHER, "--probe", "--state", bad, "--uid", "60000", "--tmpfs-bytes", "65536", "--tmpfs-inodes", "16", "--runner", paths.runnerDir, "--lib", paths.pythonLibDir], { env: {}, extendEnv: false, reject: false });
    expect(result.exitCode).toBe(121);
    expect(String(result.stderr).trim()).toBe(`box_launch: ${bad} must be uid 0's with mode 0700 (found uid 0, mode 0755)`);
    expect(hostMounts()).not.toContain(bad);
    expect(stateDirPath()).not.toBe(bad);
  });
});
