/**
 * Creates a workspace and its first API key, and prints the key once.
 * Usage: npm run workspace:create -- <name>
 */
import { createApp } from "../src/app.js";
import { loadConfig } from "../src/config.js";

const name = process.argv.slice(2).join(" ").trim();
if (!name) {
  console.error("usage: npm run workspace:create -- <name>");
  process.exit(2);
}
const app = createApp(loadConfig());
try {
  const { workspace, secret } = await app.services.workspaces.createWorkspace(name);
  console.log(`workspace ${workspace.name} (${workspace.id})\nAPI key (shown once): ${secret}`);
} finally {
  await app.close();
}
