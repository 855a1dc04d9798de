/**
 * Readings of /proc for the idle check of a runner (runner-process.ts): the processes under the
 * sandbox's bwrap, their threads and their CPU time. Each reading treats a process that ended
 * meanwhile as gone.
 */
import { readdirSync, readFileSync } from "node:fs";

/** Host pids of `root` and every process under it (one scan of /proc: there is no children file here). */
export function sandboxPids(root: number | undefined): number[] {
  if (root === undefined) return [];
  const children = new Map<number, number[]>();
  let entries: string[];
  try {
    entries = readdirSync("/proc");
  } catch {
    return [root];
  }
  for (const entry of entries) {
    if (entry.charCodeAt(0) < 48 || entry.charCodeAt(0) > 57) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "latin1");
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ", 2)[1]);
      const list = children.get(ppid);
      if (list) list.push(Number(entry));
      else children.set(ppid, [Number(entry)]);
    } catch {
      // the process ended while we looked
    }
  }
  const found = [root];
  for (let i = 0; i < found.length; i++) found.push(...(children.get(found[i]!) ?? []));
  return found;
}

/** Threads of the given processes (`Threads:` of /proc/<pid>/status); a process that is gone counts 0. */
export function threadCount(pids: number[]): number {
  let total = 0;
  for (const pid of pids) {
    try {
      const match = /^Threads:\s+(\d+)$/m.exec(readFileSync(`/proc/${pid}/status`, "latin1"));
      total += match ? Number(match[1]) : 1;
    } catch {
      // gone
    }
  }
  return total;
}

/** utime + stime (clock ticks, every thread) of the given processes; a process that is gone counts 0. */
export function cpuTicks(pids: number[]): number {
  let total = 0;
  for (const pid of pids) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, "latin1");
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      total += Number(fields[11]) + Number(fields[12]);
    } catch {
      // gone
    }
  }
  return total;
}
