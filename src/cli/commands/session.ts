import type { Command } from "commander";
import { writeProfile } from "../config.js";
import { action } from "../context.js";
import { CliError } from "../exit-codes.js";
import { emit } from "../output.js";

/** `oodle login` and `oodle whoami` (`oodle mcp serve`: src/mcp/command.ts, wired by src/oodle.ts). */
export function sessionCommands(program: Command): void {
  program
    .command("login")
    .description("checks a URL and API key against the service and saves them as a profile (readable by you only)")
    .addHelpText("after", "\nExample:\n  oodle login --url http://127.0.0.1:4000 --api-key oodle_sk_…\nThe profile file is $OODLE_CONFIG_DIR/profiles.json, else ~/.config/oodle/profiles.json.")
    .action(
      action(async (ctx) => {
        const o = ctx.options;
        if (!ctx.connection.key) throw new CliError("BAD_USER_INPUT", "is required: the workspace's API key (or OODLE_API_KEY)", "--api-key");
        const viewer = await ctx.ops.viewer();
        const name = o.profile ?? process.env.OODLE_PROFILE ?? "default";
        const path = writeProfile(name, { url: ctx.connection.url, key: ctx.connection.key, workspace: viewer.workspace.name });
        emit(ctx.output, { profile: name, url: ctx.connection.url, workspace: viewer.workspace, path }, () => `logged in to workspace "${viewer.workspace.name}" at ${ctx.connection.url} (profile "${name}" in ${path})`);
      }),
    );

  program
    .command("whoami")
    .description("the workspace and key the CLI uses")
    .action(
      action(async (ctx) => {
        const viewer = await ctx.ops.viewer();
        emit(ctx.output, { url: ctx.connection.url, ...viewer }, () => `workspace "${viewer.workspace.name}" at ${ctx.connection.url} (key ${viewer.apiKey.prefix}…, "${viewer.apiKey.name}")`);
      }),
    );
}
