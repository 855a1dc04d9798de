// `npm start` on a machine where no PostgreSQL and no Redis answer at the configured URLs: it
// installs (when missing) and starts both itself (scripts/services.ts), Redis with AOF and
// noeviction. The servers are made on spare ports, so the machine's own ones on 5432 and 6379 are
// never stopped or touched; the test removes what it made. Root with apt only (what setup needs).
import { execFileSync, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { createServer as createNetServer } from "node:net";
import path from "node:path";
import { fileURLToPath } from "node:url";
import pg from "pg";
import { describe, expect, it } from "vitest";
import { answers, ensureServices, postgresCommands, redisCommands, removeOwnServices } from "../../scripts/services.js";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const rootWithApt = process.getuid?.() === 0 && existsSync("/usr/bin/apt-get");

async function freePort(): Promise<number> {
  const server = createNetServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as { port: number }).port;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe("PostgreSQL and Redis of their own", () => {
  it("prints the exact commands when it may not run them (not root)", async () => {
    const [postgresPort, redisPort] = [await freePort(), await freePort()];
    const failure = ensureServices(`postgresql://postgres@127.0.0.1:${postgresPort}/x`, `redis://127.0.0.1:${redisPort}`, () => {}, false);
    await expect(failure).rejects.toThrow(`PostgreSQL does not answer on 127.0.0.1:${postgresPort}. Run as root:`);
    await expect(failure).rejects.toThrow(`Redis does not answer on 127.0.0.1:${redisPort}. Run as root:`);
    await expect(failure).rejects.toThrow(`--port ${redisPort} --appendonly yes --appendfsync everysec --maxmemory-policy noeviction`);
    await expect(failure).rejects.toThrow(`pg_createcluster $V oodle-${postgresPort} -p ${postgresPort}`);
    expect(redisCommands(7001).at(-1)).toContain("--appendonly yes --appendfsync everysec --maxmemory-policy noeviction");
    expect(postgresCommands(7002).join("\n")).toContain("-- --auth-local=trust --auth-host=trust");
  });

  it.skipIf(!rootWithApt)("npm start brings up its own PostgreSQL and Redis where none run", async () => {
    const [postgresPort, redisPort, apiPort] = [await freePort(), await freePort(), await freePort()];
    expect(await answers("127.0.0.1", postgresPort)).toBe(false);
    expect(await answers("127.0.0.1", redisPort)).toBe(false);
    const databaseUrl = `postgresql://postgres@127.0.0.1:${postgresPort}/oodle_own`;
    const child = spawn("npm", ["start"], {
      cwd: root,
      detached: true,
      stdio: ["ignore", "pipe", "pipe"],
      env: {
        ...process.env,
        DATABASE_URL: databaseUrl,
        REDIS_URL: `redis://127.0.0.1:${redisPort}`,
        PORT: String(apiPort),
        QUEUE_PREFIX: "oodle-own",
        LOG_LEVEL: "warn",
      },
    });
    let output = "";
    child.stdout.on("data", (chunk) => (output += chunk));
    child.stderr.on("data", (chunk) => (output += chunk));
    try {
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`npm start did not come up in 240 s:\n${output}`)), 240_000);
        const check = setInterval(() => {
          if (output.includes("Oodle code evaluators are up.")) {
            clearInterval(check);
            clearTimeout(timer);
            resolve();
          }
        }, 200);
        child.once("exit", (code) => {
          clearInterval(check);
          clearTimeout(timer);
          reject(new Error(`npm start exited with ${code}:\n${output}`));
        });
      });
      expect(output).toContain(`PostgreSQL does not answer on 127.0.0.1:${postgresPort}: installing and starting it`);
      expect(output).toContain(`Redis does not answer on 127.0.0.1:${redisPort}: installing and starting it`);
      expect((await fetch(`http://127.0.0.1:${apiPort}/ready`)).status).toBe(200);
      const redisConfig = (key: string) => execFileSync("redis-cli", ["-p", String(redisPort), "config", "get", key], { encoding: "utf8" }).split("\n")[1];
      expect(redisConfig("appendonly")).toBe("yes");
      expect(redisConfig("maxmemory-policy")).toBe("noeviction");
      const client = new pg.Client({ connectionString: databaseUrl });
      await client.connect();
      const { rows } = await client.query(`SELECT count(*)::int AS n FROM "Workspace" WHERE name = 'local'`);
      await client.end();
      expect(rows[0].n).toBe(1);
    } finally {
      if (child.exitCode === null) {
        process.kill(-child.pid!, "SIGTERM");
        await new Promise((resolve) => child.once("exit", resolve));
      }
      removeOwnServices(postgresPort, redisPort);
    }
    expect(await answers("127.0.0.1", postgresPort)).toBe(false);
    expect(await answers("127.0.0.1", redisPort)).toBe(false);
  }, 300_000);
});
