import type { Command } from "commander";
import { createApiClient } from "../api-client/http.js";
import { resolveConnection } from "./config.js";
import { EXIT } from "./exit-codes.js";
import { withFlagNames } from "./flag-names.js";
import { createOperations, type Operations } from "../api-client/operations.js";
import { processOutput, reportError, type Output } from "./output.js";

/** What every command gets: the operations over the API, the output, and the global flags. */
export interface CommandContext {
  ops: Operations;
  output: Output;
  connection: { url: string; key?: string };
  /** The command's own options merged with the global ones. */
  options: Record<string, any>;
}

/**
 * Wraps a command's action: builds its context from the global flags (--url, --api-key,
 * --profile, --json), runs it, and turns any error into its message and exit code. The action
 * returns an exit code, or nothing for success. An API error names the command's flags, not the
 * API's fields (see withFlagNames).
 * @param fields - API fields no flag spells alike, by the flag or argument that gives them (`sourceCode` → `FILE`)
 */
export function action<A extends unknown[]>(run: (ctx: CommandContext, ...args: A) => Promise<number | void>, fields: Record<string, string> = {}) {
  return async (...raw: unknown[]) => {
    const command = raw[raw.length - 1] as Command;
    const options = command.optsWithGlobals();
    const output = processOutput(Boolean(options.json));
    try {
      const connection = resolveConnection({ url: options.url, apiKey: options.apiKey, profile: options.profile });
      const ops = createOperations(createApiClient(connection));
      const code = await run({ ops, output, connection, options }, ...(raw.slice(0, -2) as A));
      process.exitCode = code ?? EXIT.ok;
    } catch (error) {
      // The API's field paths as this command's flags (`input.spanKind` → `--span-kind`).
      process.exitCode = reportError(output, withFlagNames(error, command, fields));
    }
  };
}
