import { readdirSync, realpathSync } from "node:fs";
import { arch } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import type { SandboxPaths } from "./bwrap-args.js";
import { resolveSandboxPackages } from "./sandbox-packages.js";

/** The repository root (this file is src/execution/paths.ts). */
export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");

/** The curated list of packages importable inside the sandbox. */
export const SANDBOX_PACKAGES_MANIFEST = join(REPO_ROOT, "sandbox", "packages.json");

const BPF_ARCH: Record<string, string> = { x64: "x86_64", arm64: "aarch64" };

/** The compiled base seccomp filter for this machine's architecture (sandbox/seccomp/base.<arch>.bpf). */
export function seccompFilterPath(): string {
  const name = BPF_ARCH[arch()];
  if (!name) throw new Error(`no seccomp filter is built for architecture ${arch()}`);
  return join(REPO_ROOT, "sandbox", "seccomp", `base.${name}.bpf`);
}

/**
 * Host paths of the sandbox, resolved through symlinks.
 * @param pythonLibDir - python-lib directory; defaults to the repository's.
 * @throws Error (ENOENT) when the interpreter, a system directory or python3-seccomp is missing;
 *   SandboxPackageMissingError when a curated package (sandbox/packages.json) is not installed.
 */
export function defaultSandboxPaths(pythonLibDir?: string): SandboxPaths {
  const python = realpathSync("/usr/bin/python3.11");
  const distPackages = "/usr/lib/python3/dist-packages";
  const seccompFile = readdirSync(distPackages).find((f) => /^seccomp\.cpython-311-.*\.so$/.test(f));
  if (!seccompFile) throw new Error(`python3-seccomp is not installed (no seccomp module in ${distPackages})`);
  const systemDirs = ["/usr/lib/python3.11", `/usr/lib/${arch() === "x64" ? "x86_64" : "aarch64"}-linux-gnu`, "/usr/lib64"]
    .filter((dir) => {
      try {
        realpathSync(dir);
        return true;
      } catch {
        return false;
      }
    });
  return {
    bwrap: realpathSync("/usr/bin/bwrap"),
    python,
    systemDirs,
    runnerDir: realpathSync(join(REPO_ROOT, "sandbox")),
    pythonLibDir: realpathSync(pythonLibDir ?? join(REPO_ROOT, "python-lib")),
    seccompModule: realpathSync(join(distPackages, seccompFile)),
    packageBinds: resolveSandboxPackages(SANDBOX_PACKAGES_MANIFEST).flatMap((p) => p.binds),
  };
}
