import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { chmodSync, chownSync, mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

// The fault suite's own PostgreSQL and Redis, on spare ports, in temporary directories: the
// machine's services are never touched. Postgres runs as the `postgres` user (initdb refuses root).

/** A free TCP port on 127.0.0.1 (asked of the kernel). */
export async function sparePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => resolve(typeof address === "object" && address ? address.port : 0));
    });
  });
}

function pgBin(name: string): string {
  const version = execFileSync("ls", ["/usr/lib/postgresql"], { encoding: "utf8" }).trim().split("\n").sort().pop()!;
  return `/usr/lib/postgresql/${version}/bin/${name}`;
}

const asPostgres = (command: string, args: string[]) =>
  process.getuid?.() === 0 ? { file: "runuser", args: ["-u", "postgres", "--", command, ...args] } : { file: command, args };

/** A PostgreSQL cluster of its own: start, stop (for an outage) and start again on the same data. */
export class OwnPostgres {
  readonly dir: string;
  constructor(readonly port: number) {
    this.dir = mkdtempSync(join(tmpdir(), "oodle-faults-pg-"));
    chmodSync(this.dir, 0o700);
    if (process.getuid?.() === 0) chownSync(this.dir, Number(execFileSync("id", ["-u", "postgres"], { encoding: "utf8" })), Number(execFileSync("id", ["-g", "postgres"], { encoding: "utf8" })));
    const init = asPostgres(pgBin("initdb"), ["-D", join(this.dir, "data"), "-A", "trust", "-U", "postgres", "--no-sync", "-E", "UTF8"]);
    execFileSync(init.file, init.args, { stdio: "ignore" });
  }
  get url(): string {
    return `postgresql://postgres@127.0.0.1:${this.port}/postgres`;
  }
  start(): void {
    const options = `-p ${this.port} -k ${this.dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200`;
    const cmd = asPostgres(pgBin("pg_ctl"), ["-D", join(this.dir, "data"), "-o", options, "-l", join(this.dir, "log"), "-w", "start"]);
    execFileSync(cmd.file, cmd.args, { stdio: "ignore" });
  }
  /** Stops it at once (`immediate`: open connections are cut, as when the server dies). */
  stop(mode: "fast" | "immediate" = "immediate"): void {
    const cmd = asPostgres(pgBin("pg_ctl"), ["-D", join(this.dir, "data"), "-m", mode, "-w", "stop"]);
    try {
      execFileSync(cmd.file, cmd.args, { stdio: "ignore" });
    } catch {
      // already stopped
    }
  }
  destroy(): void {
    this.stop();
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/** A Redis of its own with no persistence: a restart loses every key, as on this machine's Redis. */
export class OwnRedis {
  private child: ChildProcess | undefined;
  readonly dir = mkdtempSync(join(tmpdir(), "oodle-faults-redis-"));
  constructor(readonly port: number) {}
  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }
  async start(): Promise<void> {
    this.child = spawn("redis-server", ["--port", String(this.port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", this.dir, "--maxmemory-policy", "noeviction"], { stdio: "ignore" });
    for (let i = 0; i < 100; i++) {
      try {
        execFileSync("redis-cli", ["-p", String(this.port), "ping"], { stdio: "ignore" });
        return;
      } catch {
        await new Promise((r) => setTimeout(r, 100));
      }
    }
    throw new Error("redis-server did not start");
  }
  /** SIGKILLs it: every key is gone (no persistence). */
  async kill(): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null) return;
    const exited = new Promise((r) => child.once("exit", r));
    child.kill("SIGKILL");
    await exited;
  }
  async destroy(): Promise<void> {
    await this.kill();
    rmSync(this.dir, { recursive: true, force: true });
  }
}
