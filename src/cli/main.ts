/**
 * The command tree of `oodle`, the command line of Oodle code evaluators (run by src/oodle.ts).
 * A typed GraphQL client of a running service (OODLE_API_URL, OODLE_API_KEY or a profile from `oodle login`); it never needs
 * database credentials. Exit codes: see exit-codes.ts.
 */
import { Command, CommanderError } from "commander";
import { backfillsCommand } from "./commands/backfills.js";
import { connectionsCommand } from "./commands/connections.js";
import { pricesCommand } from "./commands/prices.js";
import { datasetsCommand } from "./commands/datasets.js";
import { evaluatorsCommand } from "./commands/evaluators.js";
import { experimentsCommand } from "./commands/experiments.js";
import { groupCommands } from "./commands/groups.js";
import { librariesCommand } from "./commands/libraries.js";
import { monitorsCommand } from "./commands/monitors.js";
import { sessionCommands } from "./commands/session.js";
import { workspaceCommand } from "./commands/workspace.js";
import { spansCommand } from "./commands/spans.js";
import { templatesCommand } from "./commands/templates.js";
import { tryCommand } from "./commands/try.js";
import { DEFAULT_API_URL } from "./config.js";
import { EXIT, EXIT_CODES_HELP } from "./exit-codes.js";

/**
 * The whole command tree; `more` adds commands from above the CLI (src/oodle.ts: `oodle mcp`),
 * before usage errors are made exit 2 on every command.
 */
export function buildProgram(more: ((program: Command) => void)[] = []): Command {
  const program = new Command("oodle")
    .description("Oodle code evaluators: templates, evaluators, shared libraries, spans, traces, sessions, datasets, experiments, backfills and monitors")
    .option("--url <url>", `the service (default: OODLE_API_URL, the profile's, else ${DEFAULT_API_URL})`)
    .option("--api-key <key>", "the workspace's API key (default: OODLE_API_KEY, else the profile's)")
    .option("--profile <name>", "a profile saved by oodle login (default: OODLE_PROFILE, else default)")
    .option("--json", "machine output: JSON on stdout (errors as JSON on stderr)")
    .showHelpAfterError()
    .addHelpText("after", `\nExamples:\n  oodle genai templates starters\n  oodle genai templates starters keyword-check\n  oodle genai evaluators get "Refund mentioned"\n\n${EXIT_CODES_HELP}`);
  const genai = program.command("genai").description("code evaluators: templates, evaluators, libraries, try, connections to LLM providers, model prices");
  templatesCommand(genai);
  evaluatorsCommand(genai);
  librariesCommand(genai);
  tryCommand(genai);
  backfillsCommand(genai);
  connectionsCommand(genai);
  pricesCommand(genai);
  spansCommand(program);
  groupCommands(program);
  datasetsCommand(program);
  experimentsCommand(program);
  backfillsCommand(program);
  monitorsCommand(program);
  workspaceCommand(program);
  sessionCommands(program);
  for (const add of more) add(program);
  // Usage errors (unknown command, missing argument) are bad input: exit 2, as commander's own default.
  const exitOverride = (c: Command) => {
    c.exitOverride();
    c.commands.forEach(exitOverride);
  };
  exitOverride(program);
  return program;
}

/** Parses `argv` and runs the command; sets the exit code of a usage error or of help. */
export async function runProgram(program: Command, argv: readonly string[] = process.argv): Promise<void> {
  try {
    await program.parseAsync(argv);
  } catch (error) {
    if (error instanceof CommanderError) {
      const helpShown = error.code === "commander.helpDisplayed" || error.code === "commander.help" || error.code === "commander.version";
      process.exitCode = helpShown ? EXIT.ok : EXIT.badInput;
    } else throw error;
  }
}
