/**
 * PostgreSQL and Redis for `npm start` and `npm test` on a fresh Debian machine: when nothing
 * answers at the configured URL and the URL points at this machine, installs Debian's packages
 * (as root, with apt) and starts a server on that port; otherwise prints exactly what to run.
 *
 * - PostgreSQL: its own cluster `oodle-<port>` (Debian's pg_createcluster; loopback only, trust
 *   for local connections, as the URLs here carry no password), started with pg_ctlcluster.
 * - Redis: `redis-server` on loopback with an append-only file (fsync every second) and
 *   `maxmemory-policy noeviction`, the two settings BullMQ needs so no job is lost, data in
 *   /var/lib/redis/oodle-<port>.
 * A server that answers is never touched, whatever its settings; nothing is ever stopped.
 */
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync } from "node:fs";
import { connect } from "node:net";

const LOOPBACK = new Set(["127.0.0.1", "localhost", "::1", "[::1]"]);

/** Host and port of a postgresql:// or redis:// URL, with the scheme's default port. */
export function endpointOf(url: string, defaultPort: number): { host: string; port: number } {
  const parsed = new URL(url);
  return { host: parsed.hostname || "127.0.0.1", port: parsed.port ? Number(parsed.port) : defaultPort };
}

/** True when something accepts a TCP connection at host:port within `timeoutMs`. */
export function answers(host: string, port: number, timeoutMs = 2000): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: host.replace(/^\[|\]$/g, ""), port });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once("connect", () => done(true));
    socket.once("error", () => done(false));
  });
}

async function waitFor(host: string, port: number, what: string): Promise<void> {
  for (let i = 0; i < 60; i++) {
    if (await answers(host, port)) return;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  throw new Error(`${what} did not answer on ${host}:${port} within 30 s`);
}

/** The commands that bring up PostgreSQL on `port` (run as root). */
export function postgresCommands(port: number): string[] {
  const cluster = `oodle-${port}`;
  return [
    "mkdir -p /etc/postgresql-common/createcluster.d && [ -e /etc/postgresql-common/createcluster.d/00-oodle.conf ] || " +
      "echo 'create_main_cluster = false' > /etc/postgresql-common/createcluster.d/00-oodle.conf",
    "DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends postgresql",
    `V=$(ls /usr/lib/postgresql | sort -n | tail -1); pg_lsclusters -h | awk '{print $2}' | grep -qx ${cluster} || ` +
      `pg_createcluster $V ${cluster} -p ${port} -- --auth-local=trust --auth-host=trust >/dev/null`,
    `pg_ctlcluster --skip-systemctl-redirect $(ls /usr/lib/postgresql | sort -n | tail -1) ${cluster} start`,
  ];
}

/** The commands that bring up Redis on `port` with AOF and noeviction (run as root). */
export function redisCommands(port: number): string[] {
  const dir = `/var/lib/redis/oodle-${port}`;
  return [
    "DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends redis-server",
    `mkdir -p ${dir} /var/log/redis`,
    `redis-server --daemonize yes --bind 127.0.0.1 -::1 --port ${port} --appendonly yes --appendfsync everysec ` +
      `--maxmemory-policy noeviction --dir ${dir} --logfile /var/log/redis/oodle-${port}.log`,
  ];
}

let aptUpdated = false;
function runAsRoot(commands: string[]): void {
  const env = { ...process.env, DEBIAN_FRONTEND: "noninteractive" };
  for (const command of commands) {
    const installs = command.includes("apt-get install");
    if (installs && !aptUpdated) {
      execFileSync("sh", ["-c", "apt-get update -qq"], { stdio: ["ignore", "ignore", "inherit"], env });
      aptUpdated = true;
    }
    // The package step only when its package is missing: never reinstall over a working setup.
    if (installs && command.includes(" postgresql") && existsSync("/usr/bin/pg_createcluster")) continue;
    if (installs && command.includes("redis-server") && existsSync("/usr/bin/redis-server")) continue;
    execFileSync("sh", ["-c", command], { stdio: ["ignore", "ignore", "inherit"], env });
  }
}

/**
 * Makes sure PostgreSQL answers at `databaseUrl` and Redis at `redisUrl`.
 * @param log - where progress lines go.
 * @param canInstall - whether it may install and start them (default: running as root with apt).
 * @throws Error with the exact commands to run when a server is missing and cannot be started
 *   here (not root, no apt, or a URL that is not this machine's).
 */
export async function ensureServices(
  databaseUrl: string,
  redisUrl: string,
  log: (line: string) => void,
  canInstall = process.getuid?.() === 0 && existsSync("/usr/bin/apt-get"),
): Promise<void> {
  const wanted = [
    { name: "PostgreSQL", ...endpointOf(databaseUrl, 5432), commands: postgresCommands },
    { name: "Redis", ...endpointOf(redisUrl, 6379), commands: redisCommands },
  ];
  const problems: string[] = [];
  for (const { name, host, port, commands } of wanted) {
    if (await answers(host, port)) continue;
    if (!LOOPBACK.has(host)) {
      problems.push(`${name} does not answer at ${host}:${port}, which is not this machine: start it there or fix the URL`);
      continue;
    }
    if (!canInstall) {
      problems.push(`${name} does not answer on ${host}:${port}. Run as root:\n  sudo sh -c '${commands(port).join(" && ").replace(/'/g, `'"'"'`)}'`);
      continue;
    }
    log(`${name} does not answer on ${host}:${port}: installing and starting it (Debian's packages)`);
    runAsRoot(commands(port));
    await waitFor(host === "localhost" ? "127.0.0.1" : host, port, name);
    log(`${name} is up on ${host}:${port}`);
  }
  if (problems.length) throw new Error(problems.join("\n"));
}

/** Test helper: stops and removes what {@link ensureServices} made on these ports (never other servers). */
export function removeOwnServices(postgresPort: number, redisPort: number): void {
  const versions = existsSync("/usr/lib/postgresql") ? readdirSync("/usr/lib/postgresql") : [];
  for (const version of versions) {
    if (existsSync(`/etc/postgresql/${version}/oodle-${postgresPort}`)) {
      const cluster = `oodle-${postgresPort}`;
      execFileSync("pg_ctlcluster", ["--skip-systemctl-redirect", version, cluster, "stop"], { stdio: "ignore" });
      execFileSync("pg_dropcluster", [version, cluster], { stdio: "ignore" });
    }
  }
  try {
    execFileSync("redis-cli", ["-p", String(redisPort), "shutdown", "nosave"], { stdio: "ignore" });
  } catch {
    // already stopped
  }
  execFileSync("rm", ["-rf", `/var/lib/redis/oodle-${redisPort}`, `/var/log/redis/oodle-${redisPort}.log`]);
}
