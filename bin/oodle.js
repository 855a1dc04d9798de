#!/usr/bin/env node
// The `oodle` command: runs the TypeScript CLI (src/cli/main.ts) through tsx, so it works from a
// fresh clone after `npm install` (npx oodle …, or npm link for a global `oodle`).
import { spawnSync } from "node:child_process";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";

const require = createRequire(import.meta.url);
const main = fileURLToPath(new URL("../src/cli/main.ts", import.meta.url));
const tsx = require.resolve("tsx");
const result = spawnSync(process.execPath, ["--import", tsx, main, ...process.argv.slice(2)], { stdio: "inherit" });
process.exit(result.status ?? 1);
