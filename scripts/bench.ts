/**
 * Benchmarks: `npm run bench -- <section>` (no section: list them).
 * Each section is a module exporting `run(): Promise<void>` that prints its own table.
 */
const SECTIONS: Record<string, () => Promise<{ run: () => Promise<void> }>> = {
  sandbox: () => import("./bench/sandbox.js"),
  live: () => import("./bench/live.js"),
};

const name = process.argv[2];
const load = name ? SECTIONS[name] : undefined;
if (!load) {
  console.error(`usage: npm run bench -- <section>; sections: ${Object.keys(SECTIONS).join(", ")}`);
  process.exit(name ? 1 : 0);
}
await (await load()).run();
