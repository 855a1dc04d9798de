/**
 * Benchmarks: `npm run bench -- <section>`; with no section, one table of every figure
 * measured side by side in one run.
 * Each section is a module exporting `run(): Promise<void>` that prints its own table.
 */
const SECTIONS: Record<string, () => Promise<{ run: () => Promise<void> }>> = {
  sandbox: () => import("./bench/sandbox.js"),
  live: () => import("./bench/live.js"),
  experiments: () => import("./bench/experiments.js"),
  monitors: () => import("./bench/monitors.js"),
  retention: () => import("./bench/retention.js"),
  groups: () => import("./bench/groups.js"),
  judges: () => import("./bench/judges.js"),
};

const name = process.argv[2];
// No section: every figure in one table, measured in one run (scripts/bench/all.ts).
const load = name ? SECTIONS[name] : () => import("./bench/all.js");
if (!load) {
  console.error(`usage: npm run bench [-- <section>]; sections: ${Object.keys(SECTIONS).join(", ")}; none: all of them in one table`);
  process.exit(1);
}
await (await load()).run();
