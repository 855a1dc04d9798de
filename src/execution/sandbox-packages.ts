import { existsSync, readdirSync, readFileSync, readlinkSync, realpathSync, statSync } from "node:fs";
import { arch } from "node:os";
import { isAbsolute, join } from "node:path";
import { z } from "zod";

/** Where the curated packages appear inside the sandbox (runner.py puts it on sys.path). */
export const PACKAGES_INSIDE = "/sandbox/packages";

const manifestSchema = z.object({
  distPackages: z.string().startsWith("/"),
  packages: z.array(
    z.object({
      import: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/),
      debian: z.string().min(1),
      modules: z.array(z.string().regex(/^[A-Za-z0-9_.-]+\*?$/)).min(1),
      distributions: z.array(z.string().regex(/^[A-Za-z0-9_.-]+$/)).min(1),
      hostLinks: z
        .array(z.union([z.string().startsWith("/"), z.object({ link: z.string().startsWith("/"), prefer: z.string().startsWith("/") })]))
        .optional(),
      data: z.array(z.object({ path: z.string().regex(/^\/usr\/share\/[A-Za-z0-9_.-]+$/), debian: z.string().min(1) })).optional(),
    }),
  ),
});

/** One read-only bind: host `source` (resolved, no symlinks) at `dest` inside the sandbox. */
export interface PackageBind {
  source: string;
  dest: string;
}

/** A curated package as installed on this host. */
export interface SandboxPackage {
  /** The name user code imports, e.g. "numpy". */
  import: string;
  /** Debian package providing it, e.g. "python3-numpy". */
  debian: string;
  /** Version from the package's own metadata (dist-info METADATA / egg-info PKG-INFO). */
  version: string;
  /** The binds this package needs (its modules, its dependencies', their metadata, host links, data directories). */
  binds: PackageBind[];
}

/** A curated package is not installed on this host; `debian` names what to install. */
export class SandboxPackageMissingError extends Error {
  constructor(
    readonly debian: string,
    message: string,
  ) {
    super(message);
    this.name = "SandboxPackageMissingError";
  }
}

function multiarch(): string {
  return arch() === "arm64" ? "aarch64-linux-gnu" : "x86_64-linux-gnu";
}

function metadataVersion(path: string): string {
  const file = statSync(path).isDirectory()
    ? [join(path, "METADATA"), join(path, "PKG-INFO")].find((f) => existsSync(f))
    : path;
  const text = file ? readFileSync(file, "utf8") : "";
  const version = /^Version:\s*(\S+)/m.exec(text)?.[1];
  if (!version) throw new Error(`no Version in the package metadata ${path}`);
  return version;
}

/**
 * Resolves the curated package list (sandbox/packages.json) against this host's dist-packages.
 * @param manifestPath - the list; the repository's sandbox/packages.json.
 * @returns every package with its version and binds, in the list's order.
 * @throws SandboxPackageMissingError naming the Debian package when an entry is not installed.
 */
export function resolveSandboxPackages(manifestPath: string): SandboxPackage[] {
  const manifest = manifestSchema.parse(JSON.parse(readFileSync(manifestPath, "utf8")));
  const entries = readdirSync(manifest.distPackages);
  return manifest.packages.map((pkg) => {
    const missing = (what: string) =>
      new SandboxPackageMissingError(pkg.debian, `sandbox package ${pkg.import}: ${what} not found; install ${pkg.debian} (npm run setup)`);
    const names: string[] = [];
    for (const module of pkg.modules) {
      const found = module.endsWith("*") ? entries.filter((e) => e.startsWith(module.slice(0, -1))) : entries.filter((e) => e === module);
      if (!found.length) throw missing(`${manifest.distPackages}/${module}`);
      names.push(...found);
    }
    const metadata = pkg.distributions.map((dist) => {
      const entry = entries.find((e) => e.startsWith(`${dist}-`) && /^\d/.test(e.slice(dist.length + 1)) && /\.(dist|egg)-info$/.test(e));
      if (!entry) throw missing(`metadata of ${dist}`);
      return entry;
    });
    names.push(...metadata);
    const binds: PackageBind[] = names.map((name) => ({
      source: realpathSync(join(manifest.distPackages, name)),
      dest: `${PACKAGES_INSIDE}/${name}`,
    }));
    for (const entry of pkg.hostLinks ?? []) {
      const { link, prefer } = typeof entry === "string" ? { link: entry, prefer: undefined } : entry;
      const path = link.replace("{multiarch}", multiarch());
      if (!existsSync(path)) throw missing(path);
      const hop = readlinkSync(path);
      // Only a hop out of the bound system directories needs a bind (e.g. /etc/alternatives/…).
      if (!isAbsolute(hop) || !hop.startsWith("/etc/")) continue;
      // `prefer` pins the target whatever alternative the host selected: the reference BLAS and
      // LAPACK rather than OpenBLAS (which python3-scipy pulls in), so the sandbox computes and
      // uses memory the same on every host (OpenBLAS's threaded init reserves ~220 MB of address space).
      const preferred = prefer?.replace("{multiarch}", multiarch());
      const source = preferred && existsSync(preferred) ? realpathSync(preferred) : realpathSync(path);
      binds.push({ source, dest: hop });
    }
    // Data the package reads at run time (NLTK's WordNet from Debian's wordnet-base), at the same path.
    for (const data of pkg.data ?? []) {
      if (!existsSync(data.path)) {
        throw new SandboxPackageMissingError(data.debian, `sandbox package ${pkg.import}: ${data.path} not found; install ${data.debian} (npm run setup)`);
      }
      binds.push({ source: realpathSync(data.path), dest: data.path });
    }
    return { import: pkg.import, debian: pkg.debian, version: metadataVersion(join(manifest.distPackages, metadata[0]!)), binds };
  });
}

/** bwrap arguments binding every package read-only (one `--ro-bind` per entry). */
export function packageBindArgs(binds: readonly PackageBind[]): string[] {
  return binds.flatMap((b) => ["--ro-bind", b.source, b.dest]);
}
