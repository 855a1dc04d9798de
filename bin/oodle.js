#!/usr/bin/env node
// The `oodle` command: loads the TypeScript CLI (src/oodle.ts) through tsx's loader, so it
// works from a fresh clone after `npm install` (npx oodle …, or npm link for a global `oodle`).
import { register } from "tsx/esm/api";

register();
await import(new URL("../src/oodle.ts", import.meta.url).href);
