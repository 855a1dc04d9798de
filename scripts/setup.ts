/**
 * Sets up whatever is missing on a fresh machine of this project's kind, then exits:
 * the generated Prisma client, the Debian packages the service (and tests) need, PostgreSQL and
 * Redis when none answers at the configured URLs (scripts/services.ts), the database and its
 * migrations. Safe to run any number of times.
 *
 * Usage: tsx scripts/setup.ts [--test]   (--test: the test database and the test-only packages)
 */
import { execFileSync, spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { TEST_DATABASE_URL, TEST_REDIS_URL } from "../test/env.js";
import { ensureServices } from "./services.js";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const forTests = process.argv.includes("--test");
const started = Date.now();

function step(message: string): void {
  console.log(`[setup] ${message}`);
}

/** Debian packages, each with a file whose presence shows it is installed. */
const servicePackages: [pkg: string, probe: string][] = [
  ["bubblewrap", "/usr/bin/bwrap"],
  ["python3.11", "/usr/bin/python3.11"],
  ["python3-seccomp", "/usr/lib/python3/dist-packages/seccomp.cpython-311-x86_64-linux-gnu.so"],
  // The curated packages importable inside the sandbox (sandbox/packages.json; README "Packages inside the sandbox").
  ["python3-phonenumbers", "/usr/lib/python3/dist-packages/phonenumbers"],
  ["python3-jsonschema", "/usr/lib/python3/dist-packages/jsonschema"],
  ["python3-yaml", "/usr/lib/python3/dist-packages/yaml"],
  ["python3-dateutil", "/usr/lib/python3/dist-packages/dateutil"],
  ["python3-regex", "/usr/lib/python3/dist-packages/regex"],
  ["python3-numpy", "/usr/lib/python3/dist-packages/numpy"],
  ["python3-nltk", "/usr/lib/python3/dist-packages/nltk"],
  // WordNet 3.0, read by nltk for the Opik stand-in's METEOR (bound at the same path in the sandbox).
  ["wordnet-base", "/usr/share/wordnet/index.noun"],
];
/** Test-only packages: reference implementations the Python tests compare against (Debian ships them), a browser. */
const testPackages: [pkg: string, probe: string][] = [
  ["python3-levenshtein", "/usr/lib/python3/dist-packages/Levenshtein"],
  ["python3-pyphen", "/usr/lib/python3/dist-packages/pyphen"],
  // SciPy: the monitors' tests compare their z and Welch tests with scipy.stats (test/monitors/stats.test.ts).
  ["python3-scipy", "/usr/lib/python3/dist-packages/scipy"],
  ["pocketsphinx-en-us", "/usr/share/pocketsphinx/model/en-us/cmudict-en-us.dict"],
  // Headless browser of the GraphiQL test (test/graphiql), driven by playwright-core.
  ["chromium", "/usr/bin/chromium"],
];

function ensureDebianPackages(): void {
  const wanted = forTests ? [...servicePackages, ...testPackages] : servicePackages;
  const missing = wanted.filter(([, probe]) => !existsSync(probe)).map(([pkg]) => pkg);
  if (!missing.length) return;
  const command = `apt-get update && apt-get install -y --no-install-recommends ${missing.join(" ")}`;
  const canInstall = process.getuid?.() === 0 && existsSync("/usr/bin/apt-get");
  if (!canInstall) {
    console.error(`[setup] missing Debian packages: ${missing.join(", ")}. Run as root:\n  sudo sh -c '${command}'`);
    process.exit(1);
  }
  step(`installing Debian packages: ${missing.join(", ")}`);
  const env = { ...process.env, DEBIAN_FRONTEND: "noninteractive" };
  execFileSync("sh", ["-c", command], { stdio: ["ignore", "ignore", "inherit"], env });
}

/** `prisma generate` when the schema changed since the last generation (hash kept beside the output). */
function ensurePrismaClient(): void {
  const schema = readFileSync(path.join(root, "prisma/schema.prisma"));
  const hash = createHash("sha256").update(schema).digest("hex");
  const marker = path.join(root, "src/generated/.schema-hash");
  if (existsSync(marker) && readFileSync(marker, "utf8") === hash) return;
  step("generating the Prisma client");
  // The native schema engine cannot be downloaded here and generate does not need it
  // (it only checks that the file exists); /bin/false, never /bin/true, so nothing else can silently "succeed".
  const result = spawnSync(path.join(root, "node_modules/.bin/prisma"), ["generate"], {
    cwd: root,
    stdio: ["ignore", "ignore", "inherit"],
    env: { ...process.env, PRISMA_SCHEMA_ENGINE_BINARY: "/bin/false", PRISMA_HIDE_UPDATE_MESSAGE: "1" },
  });
  if (result.status !== 0) process.exit(result.status ?? 1);
  writeFileSync(marker, hash);
}

ensurePrismaClient();
ensureDebianPackages();
const databaseUrl = forTests ? TEST_DATABASE_URL : (process.env.DATABASE_URL || "postgresql://postgres@127.0.0.1:5432/oodle");
const redisUrl = forTests ? TEST_REDIS_URL : (process.env.REDIS_URL || "redis://127.0.0.1:6379");
try {
  await ensureServices(databaseUrl, redisUrl, step);
} catch (error) {
  console.error(`[setup] ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
}
const { migrate } = await import("./lib/migrations.js");
step(`database ${new URL(databaseUrl).pathname.slice(1)}: ${await migrate(databaseUrl, "deploy")}`);
step(`ready in ${((Date.now() - started) / 1000).toFixed(1)} s`);
