import { execFileSync } from "node:child_process";
import { LIMIT_SPECS, type Limits } from "../../execution/limits.js";
import { defaultSandboxPaths, SANDBOX_PACKAGES_MANIFEST } from "../../execution/paths.js";
import { resolveSandboxPackages } from "../../execution/sandbox-packages.js";

/** One importable package of the sandbox. */
export interface SandboxPackageInfo {
  /** The name user code imports. */
  name: string;
  version: string;
  /** The Debian package that provides it. */
  debianPackage: string;
}

/** One resource limit, with its unit (the suffix of its name: ms or bytes; openFiles: a count). */
export interface SandboxLimitInfo {
  name: keyof Limits;
  unit: "ms" | "bytes" | "count";
  default: number;
  ceiling: number;
  min: number;
}

/** What evaluator code can rely on inside the sandbox. */
export interface SandboxCapabilities {
  /** The interpreter's version, e.g. "3.11.2". */
  pythonVersion: string;
  /** Importable besides the standard library and oodle_eval (sandbox/packages.json). */
  packages: SandboxPackageInfo[];
  limits: SandboxLimitInfo[];
}

let cached: SandboxCapabilities | undefined;

/**
 * The sandbox's Python version, packages and limits, read from this host once and cached.
 * @throws SandboxPackageMissingError when a listed package is not installed (see setup).
 */
export function sandboxCapabilities(): SandboxCapabilities {
  if (cached) return cached;
  const python = defaultSandboxPaths().python;
  const pythonVersion = execFileSync(python, ["-I", "-S", "-c", "import sys; print('%d.%d.%d' % sys.version_info[:3])"], {
    encoding: "utf8",
    env: {},
  }).trim();
  const packages = resolveSandboxPackages(SANDBOX_PACKAGES_MANIFEST).map((p) => ({
    name: p.import,
    version: p.version,
    debianPackage: p.debian,
  }));
  const limits = (Object.keys(LIMIT_SPECS) as (keyof Limits)[]).map((name) => ({
    name,
    unit: name.endsWith("Ms") ? ("ms" as const) : name.endsWith("Bytes") ? ("bytes" as const) : ("count" as const),
    ...LIMIT_SPECS[name],
  }));
  cached = { pythonVersion, packages, limits };
  return cached;
}
