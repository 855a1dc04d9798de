import { describe, expect, it } from "vitest";
import { buildBwrapArgs, type SandboxPaths } from "../../src/execution/bwrap-args.js";

const paths: SandboxPaths = {
  bwrap: "/usr/bin/bwrap",
  python: "/usr/bin/python3.11",
  systemDirs: ["/usr/lib/python3.11", "/usr/lib/x86_64-linux-gnu"],
  runnerDir: "/srv/app/sandbox",
  pythonLibDir: "/srv/app/python-lib",
  seccompModule: "/usr/lib/python3/dist-packages/seccomp.cpython-311-x86_64-linux-gnu.so",
};

/** Index of `flag` followed by `values`. */
function find(args: string[], ...seq: string[]): number {
  for (let i = 0; i + seq.length <= args.length; i++) if (seq.every((v, j) => args[i + j] === v)) return i;
  return -1;
}

describe("buildBwrapArgs", () => {
  const args = buildBwrapArgs(paths, { tmpfsBytes: 1234 }, 7);

  it("is pure", () => {
    expect(buildBwrapArgs(paths, { tmpfsBytes: 1234 }, 7)).toEqual(args);
  });

  it("unshares every namespace, dies with its parent, starts a new session, clears the environment", () => {
    for (const flag of ["--unshare-all", "--unshare-user", "--die-with-parent", "--new-session", "--clearenv"]) expect(args).toContain(flag);
    expect(args).not.toContain("--share-net");
  });

  it("mounts no /proc, no /etc and nothing writable but /tmp", () => {
    expect(args).not.toContain("--proc");
    expect(args.join(" ")).not.toMatch(/ \/etc| \/home| \/root| \/work/);
    expect(args.filter((a) => a === "--bind")).toEqual([]);
    expect(find(args, "--ro-bind", paths.pythonLibDir, "/sandbox/lib")).toBeGreaterThan(-1);
    expect(find(args, "--ro-bind", paths.runnerDir, "/sandbox/runner")).toBeGreaterThan(-1);
  });

  it("caps /tmp and remounts the root read-only after the mounts", () => {
    const tmp = find(args, "--size", "1234", "--tmpfs", "/tmp");
    expect(tmp).toBeGreaterThan(-1);
    expect(find(args, "--remount-ro", "/")).toBeGreaterThan(tmp);
  });

  it("binds the box's host-mounted tmpfs at /tmp when there is one (its inode cap), and only that", () => {
    const withBox = buildBwrapArgs(paths, { tmpfsBytes: 1234 }, 7, undefined, "/tmp/oodle-sandbox-tmp/3/tmp");
    const bind = find(withBox, "--bind", "/tmp/oodle-sandbox-tmp/3/tmp", "/tmp");
    expect(bind).toBeGreaterThan(-1);
    expect(withBox.filter((a) => a === "--bind")).toHaveLength(1);
    expect(withBox).not.toContain("--tmpfs");
    expect(find(withBox, "--remount-ro", "/")).toBeGreaterThan(bind);
  });

  it("loads the seccomp filter from the given fd and runs the runner with an isolated python", () => {
    expect(find(args, "--seccomp", "7")).toBeGreaterThan(-1);
    expect(args.slice(-5)).toEqual(["/usr/bin/python3.11", "-I", "-S", "-B", "/sandbox/runner/runner.py"]);
  });
});
