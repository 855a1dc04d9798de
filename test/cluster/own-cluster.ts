import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sparePort } from "../faults/infra.js";

// A Redis Cluster of its own for `npm run test:cluster`: three masters and three replicas from
// Debian's redis-server on spare loopback ports, each in its own directory under one temporary
// directory. The machine's Redis is never touched. A killed master's replica takes over after
// cluster-node-timeout (1 s here) without a manual failover.

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** One redis-server of the cluster. */
interface ClusterProcess {
  port: number;
  child: ChildProcess;
}

/** A node as `CLUSTER NODES` reports it. */
export interface NodeInfo {
  id: string;
  port: number;
  role: "master" | "slave";
  failed: boolean;
  /** The id of its master (a replica), else null. */
  masterId: string | null;
  /** Slot ranges it serves (a master), e.g. [[0, 5460]]. */
  slots: [number, number][];
}

const alive = (n: ClusterProcess) => n.child.exitCode === null && n.child.signalCode === null;

function cli(port: number, ...args: string[]): string {
  return execFileSync("redis-cli", ["-p", String(port), ...args], { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] });
}

/** Three masters and three replicas on loopback; `kill` SIGKILLs one node. */
export class OwnRedisCluster {
  readonly dir = mkdtempSync(join(tmpdir(), "oodle-cluster-redis-"));
  private readonly nodes: ClusterProcess[] = [];

  /** The seed list for REDIS_CLUSTER_NODES (every node). */
  get seeds(): string {
    return this.nodes.map((n) => `127.0.0.1:${n.port}`).join(",");
  }

  /** Starts six nodes, joins them (`redis-cli --cluster create … --cluster-replicas 1`) and waits for cluster_state:ok. */
  async start(): Promise<void> {
    for (let i = 0; i < 6; i++) {
      const port = await sparePort();
      const dir = join(this.dir, String(port));
      mkdirSync(dir);
      const child = spawn(
        "redis-server",
        ["--port", String(port), "--bind", "127.0.0.1", "--dir", dir, "--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf", "--cluster-node-timeout", "1000", "--save", "", "--appendonly", "no", "--maxmemory-policy", "noeviction", "--protected-mode", "no"],
        { stdio: "ignore" },
      );
      this.nodes.push({ port, child });
    }
    for (const node of this.nodes) await this.waitFor(() => cli(node.port, "ping").trim() === "PONG", `node ${node.port} to answer`);
    execFileSync("redis-cli", ["--cluster", "create", ...this.nodes.map((n) => `127.0.0.1:${n.port}`), "--cluster-replicas", "1", "--cluster-yes"], { stdio: "ignore" });
    await this.waitOk();
  }

  /** Waits until every live node says cluster_state:ok and agrees on three masters that serve all slots. */
  async waitOk(ms = 60_000): Promise<void> {
    await this.waitFor(() => {
      const live = this.nodes.filter(alive);
      return live.every((n) => /cluster_state:ok/.test(cli(n.port, "cluster", "info"))) && this.topology().filter((n) => n.role === "master" && !n.failed && n.slots.length > 0).length === 3;
    }, "cluster_state:ok", ms);
  }

  /** The nodes as a live node sees them. */
  topology(): NodeInfo[] {
    const live = this.nodes.find(alive)!;
    return cli(live.port, "cluster", "nodes")
      .trim()
      .split("\n")
      .map((line) => {
        const [id, address, flags, master, , , , , ...slots] = line.split(" ");
        return {
          id: id!,
          port: Number(address!.split("@")[0]!.split(":")[1]),
          role: flags!.includes("master") ? ("master" as const) : ("slave" as const),
          failed: flags!.includes("fail"),
          masterId: master === "-" ? null : master!,
          slots: slots.filter((s) => /^\d/.test(s)).map((s) => (s.includes("-") ? (s.split("-").map(Number) as [number, number]) : ([Number(s), Number(s)] as [number, number]))),
        };
      });
  }

  /** The master serving `key`'s slot (`CLUSTER KEYSLOT`). */
  masterOf(key: string): NodeInfo {
    const live = this.nodes.find(alive)!;
    const slot = Number(cli(live.port, "cluster", "keyslot", key).trim());
    const master = this.topology().find((n) => n.role === "master" && !n.failed && n.slots.some(([a, b]) => slot >= a && slot <= b));
    if (!master) throw new Error(`no master serves slot ${slot}`);
    return master;
  }

  /** SIGKILLs the node on `port` (no shutdown, no save: as when its machine dies). */
  async kill(port: number): Promise<void> {
    const node = this.nodes.find((n) => n.port === port);
    if (!node || !alive(node)) return;
    const exited = new Promise((r) => node.child.once("exit", r));
    node.child.kill("SIGKILL");
    await exited;
  }

  async destroy(): Promise<void> {
    for (const node of this.nodes) await this.kill(node.port);
    rmSync(this.dir, { recursive: true, force: true });
  }

  private async waitFor(check: () => boolean, what: string, ms = 30_000): Promise<void> {
    const deadline = Date.now() + ms;
    while (Date.now() < deadline) {
      try {
        if (check()) return;
      } catch {
        // not up yet
      }
      await sleep(200);
    }
    throw new Error(`timed out waiting for ${what}`);
  }
}
