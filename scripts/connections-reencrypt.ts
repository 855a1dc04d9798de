/**
 * Seals every connection's API key (all workspaces) again with the FIRST key of CONNECTION_KEYS:
 * the middle step of a key rotation (docs/connections.md § Rotating the key). Prints what it did;
 * exits 1 when a key could not be opened (its key id is not in CONNECTION_KEYS), leaving that row.
 * Usage: CONNECTION_KEYS=new:…,old:… npm run connections:reencrypt
 */
import { createApp } from "../src/app.js";
import { loadConfig } from "../src/config.js";

const app = createApp(loadConfig());
try {
  const report = await app.services.connections.reencryptConnections();
  console.log(`re-encrypted ${report.reencrypted} connection key(s) under "${app.config.CONNECTION_KEYS!.currentKeyId}"; ${report.current} already under it; ${report.failed.length} could not be opened`);
  for (const f of report.failed) console.log(`  connection ${f.id}: ${f.reason}`);
  process.exitCode = report.failed.length ? 1 : 0;
} catch (error) {
  console.error(error instanceof Error ? error.message : String(error));
  process.exitCode = 1;
} finally {
  await app.close();
}
