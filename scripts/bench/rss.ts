import { readdirSync, readFileSync } from "node:fs";

/** One process: its pid, parent and command name. */
export interface Proc {
  pid: number;
  ppid: number;
  comm: string;
}

/** Every process of the host, read from /proc (ones that end while read are left out). */
export function processes(): Proc[] {
  const list: Proc[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const close = stat.lastIndexOf(")");
      const comm = stat.slice(stat.indexOf("(") + 1, close);
      const ppid = Number(stat.slice(close + 2).split(" ")[1]);
      list.push({ pid: Number(entry), ppid, comm });
    } catch {
      // the process ended while we looked
    }
  }
  return list;
}

/** Resident set size of a process in KiB (VmRSS), or 0 when it is gone. */
function rssKiB(pid: number): number {
  try {
    const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return match ? Number(match[1]) : 0;
  } catch {
    return 0;
  }
}

/**
 * The RSS (MiB) of each Python process below this one — the sandbox runners (bwrap → python3.11),
 * found by walking /proc from this process's pid.
 */
export function runnerRssMiB(root = process.pid): number[] {
  const all = processes();
  const children = new Map<number, Proc[]>();
  for (const p of all) children.set(p.ppid, [...(children.get(p.ppid) ?? []), p]);
  const found: number[] = [];
  const walk = (pid: number) => {
    for (const child of children.get(pid) ?? []) {
      if (child.comm.startsWith("python")) found.push(rssKiB(child.pid) / 1024);
      walk(child.pid);
    }
  };
  walk(root);
  return found.filter((r) => r > 0);
}
