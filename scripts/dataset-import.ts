/**
 * Imports a JSON Lines file (the items.jsonl shape of ../shared/data) into a dataset, streamed,
 * in one transaction. The dataset is created when the workspace has none by that name, else the
 * items are appended.
 *
 * Usage: npm run dataset:import -- <dataset name> <file.jsonl> [--skip-bad-lines] [--workspace <name>]
 *   --skip-bad-lines  import the good lines and list the bad ones (default: a bad line imports nothing)
 *   --workspace       the workspace (default "local", the one `npm start` prints a key for)
 * Exits 1 when nothing was imported because of bad lines, 2 on a usage error.
 */
import { createReadStream, existsSync } from "node:fs";
import { parseArgs } from "node:util";
import { createApp } from "../src/app.js";
import { loadConfig } from "../src/config.js";
import { localAdministrator } from "../src/lib/principal.js";
import { BadUserInputError } from "../src/lib/errors.js";

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { "skip-bad-lines": { type: "boolean", default: false }, workspace: { type: "string", default: "local" } },
});
const [name, file] = positionals;
if (!name || !file || positionals.length > 2) {
  console.error("usage: npm run dataset:import -- <dataset name> <file.jsonl> [--skip-bad-lines] [--workspace <name>]");
  process.exit(2);
}
if (!existsSync(file)) {
  console.error(`no such file: ${file}`);
  process.exit(2);
}

const app = createApp(loadConfig());
let code = 0;
try {
  // "local" is made as `npm start` makes it; any other name must exist (a typo must not make a
  // workspace that no key can read).
  const workspace =
    values.workspace === "local"
      ? await app.services.workspaces.findOrCreateWorkspace("local")
      : await app.prisma.workspace.findFirst({ where: { name: values.workspace! } });
  if (!workspace) throw new BadUserInputError([{ path: "--workspace", message: `no workspace named "${values.workspace}": create it with npm run workspace:create -- ${values.workspace}` }]);
  const principal = localAdministrator(workspace.id);
  const mode = values["skip-bad-lines"] ? "skip" : "abort";
  const started = performance.now();
  const report = await app.services.datasets.importItems(principal, { name, mode }, createReadStream(file));
  const seconds = (performance.now() - started) / 1000;
  console.log(`imported ${report.imported} items into dataset "${name}" (now ${report.itemCount} items) in ${seconds.toFixed(1)} s`);
  if (report.badLineCount > 0) {
    console.log(`skipped ${report.badLineCount} bad lines:`);
    for (const bad of report.badLines) console.log(`  line ${bad.line}: ${bad.message}`);
    if (report.badLineCount > report.badLines.length) console.log(`  … and ${report.badLineCount - report.badLines.length} more`);
  }
} catch (error) {
  if (!(error instanceof BadUserInputError)) throw error;
  console.error("nothing imported:");
  for (const issue of error.issues) console.error(`  ${issue.path ? `${issue.path}: ` : ""}${issue.message}`);
  code = 1;
} finally {
  await app.close();
}
process.exit(code);
