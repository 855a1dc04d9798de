import { mkdirSync, readFileSync, rmSync, chownSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { execa } from "execa";
import type { Box } from "./box-uids.js";
import type { Limits } from "./limits.js";

/**
 * The sandbox's /tmp as a tmpfs mounted by the host per box, so that it has an inode cap:
 * bwrap 0.8's `--tmpfs` takes `--size` but no `nr_inodes`, and empty files use no tmpfs blocks
 * (314,000 of them in 4 s pinned ~400 MB of kernel slab within one item). The worker runs as root,
 * so it mounts `tmpfs -o size=<tmpfsBytes>,nr_inodes=<tmpfsInodes>,mode=1777,uid=<box uid>` at
 * `<BOX_TMP_DIR>/<box id>/tmp` (the box directory is the box uid's, mode 0700: no other host
 * user reaches the mount) and bwrap binds it at /tmp. Unmounted (lazily: `umount -l`) when the
 * sandbox has exited, before the box id is released.
 *
 * A worker that is not root (or cannot mount) keeps bwrap's own tmpfs: then /tmp has no inode
 * cap within an item (the runner still counts inodes between items and retires on any left).
 */
export const BOX_TMP_DIR = join(tmpdir(), "oodle-sandbox-tmp");

/** A mounted per-box tmpfs: `path` is bound at /tmp; `release` unmounts it and removes its directories. */
export interface BoxTmpfs {
  path: string;
  release(): Promise<void>;
}

/** True when `path` is a mount point in this process's mount namespace (/proc/self/mountinfo, field 5). */
export function isMountPoint(path: string): boolean {
  let info: string;
  try {
    info = readFileSync("/proc/self/mountinfo", "utf8");
  } catch {
    return false;
  }
  // Paths in mountinfo escape space, tab, newline and backslash as octal.
  const escaped = path.replace(/[ \t\n\\]/g, (c) => `\\${c.charCodeAt(0).toString(8).padStart(3, "0")}`);
  return info.split("\n").some((line) => line.split(" ")[4] === escaped);
}

async function unmount(path: string): Promise<void> {
  await execa("umount", ["-l", path], { reject: false, env: {}, extendEnv: false });
}

/**
 * Mounts the per-box tmpfs for `box` (see the module doc).
 * @param limits - `tmpfsBytes` (size) and `tmpfsInodes` (nr_inodes, /tmp itself included).
 * @throws Error with mount's message when the mount fails (the caller falls back to bwrap's tmpfs).
 */
export async function mountBoxTmpfs(box: Box, limits: Pick<Limits, "tmpfsBytes" | "tmpfsInodes">): Promise<BoxTmpfs> {
  mkdirSync(BOX_TMP_DIR, { recursive: true, mode: 0o711 });
  const boxDir = join(BOX_TMP_DIR, String(box.id));
  const path = join(boxDir, "tmp");
  // A worker that died left its mount behind: the box id is ours now (box-uids.ts), so it is stale.
  for (let tries = 0; isMountPoint(path); tries++) {
    if (tries === 5) throw new Error(`a stale mount at ${path} could not be unmounted`);
    await unmount(path);
  }
  mkdirSync(path, { recursive: true, mode: 0o700 });
  chownSync(boxDir, box.uid, box.uid);
  const options = `size=${limits.tmpfsBytes},nr_inodes=${limits.tmpfsInodes},mode=1777,uid=${box.uid},gid=${box.uid},nosuid,nodev`;
  const result = await execa("mount", ["-t", "tmpfs", "-o", options, `oodle-box-${box.id}`, path], { reject: false, env: {}, extendEnv: false });
  if (result.exitCode !== 0) throw new Error(`mount of the sandbox's /tmp failed: ${String(result.stderr).trim() || `exit code ${result.exitCode}`}`);
  let released: Promise<void> | undefined;
  return {
    path,
    release() {
      released ??= (async () => {
        await unmount(path);
        rmSync(boxDir, { recursive: true, force: true });
      })();
      return released;
    },
  };
}
