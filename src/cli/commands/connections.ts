import type { Command } from "commander";
import type { ConnectionRecord, ConnectionTestRecord } from "../../api-client/connection-operations.js";
import { action, type CommandContext } from "../context.js";
import { CliError, EXIT } from "../exit-codes.js";
import { numberFlag } from "../inputs.js";
import { emit, fields, table } from "../output.js";

/** API fields no flag spells alike, by the flag that gives them. */
const FLAGS = { apiKey: "--api-key-env", baseUrl: "--base-url", defaultModel: "--model", maxConcurrentRequests: "--max-concurrent-requests" };

/**
 * The provider key of `--api-key-env VAR` (read from that variable) or `--api-key-stdin` (the
 * first line of stdin). There is no flag taking the key itself: a value typed on the command line
 * lands in the shell's history and in `ps`.
 * @returns undefined when neither is given.
 * @throws CliError BAD_USER_INPUT naming the flag.
 */
export async function readProviderKey(options: Record<string, unknown>, stdin: NodeJS.ReadableStream = process.stdin): Promise<string | undefined> {
  const variable = options.apiKeyEnv as string | undefined;
  if (variable !== undefined && options.apiKeyStdin) throw new CliError("BAD_USER_INPUT", "give the key one way: --api-key-env VAR or --api-key-stdin", "--api-key-env");
  if (variable !== undefined) {
    const value = process.env[variable];
    if (!value) throw new CliError("BAD_USER_INPUT", `the environment variable ${variable} is not set or empty`, "--api-key-env");
    return value;
  }
  if (!options.apiKeyStdin) return undefined;
  const chunks: Buffer[] = [];
  for await (const chunk of stdin) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk)));
  const key = Buffer.concat(chunks).toString("utf8").split(/\r?\n/)[0]!.trim();
  if (!key) throw new CliError("BAD_USER_INPUT", "stdin held no key (give it on the first line)", "--api-key-stdin");
  return key;
}

/** One connection for people (never a key: the API has none to give). */
export function connectionText(c: ConnectionRecord): string {
  return fields([
    ["connection", `${c.name} (${c.id})`],
    ["provider", c.provider],
    ["base URL", c.baseUrl ?? "(the provider's own)"],
    ["default model", c.defaultModel],
    ["max concurrent requests", c.maxConcurrentRequests],
    ["key", c.keyHint ? `…${c.keyHint} (sealed with ${c.keyId})` : `(sealed with ${c.keyId})`],
  ]);
}

/** A connection test for people: ok with the model and time, or the code and the provider's message. */
export function connectionTestText(r: ConnectionTestRecord): string {
  if (r.ok) return `ok: ${r.connection.name} answered with ${r.model} in ${r.latencyMs} ms`;
  const e = r.error!;
  const retry = e.retryAfterSeconds !== null ? ` (retry after ${e.retryAfterSeconds} s)` : "";
  return `failed: ${r.connection.name} (${r.model}): ${e.code}${e.status !== null ? `, HTTP ${e.status}` : ""}${retry}: ${e.message}`;
}

/** The createConnection / updateConnection fields from the flags. */
async function connectionInput(ctx: CommandContext): Promise<Record<string, unknown>> {
  const o = ctx.options;
  const input: Record<string, unknown> = {};
  if (o.provider !== undefined) input.provider = o.provider;
  if (o.model !== undefined) input.defaultModel = o.model;
  if (o.baseUrl !== undefined) input.baseUrl = o.baseUrl === "" ? null : o.baseUrl;
  if (o.maxConcurrentRequests !== undefined) input.maxConcurrentRequests = numberFlag(o.maxConcurrentRequests, "--max-concurrent-requests");
  const apiKey = await readProviderKey(o);
  if (apiKey !== undefined) input.apiKey = apiKey;
  return input;
}

/** The flags shared by create and update. */
function settingsOptions(command: Command): Command {
  return command
    .option("--provider <provider>", "openai (any OpenAI-compatible API: OpenAI, Azure OpenAI, vLLM, Ollama, LM Studio, llama.cpp) or anthropic")
    .option("--model <model>", "the default model (e.g. gpt-4o-mini, claude-3-5-haiku-latest)")
    .option("--base-url <url>", "the API's base URL, e.g. http://127.0.0.1:11434/v1 (default: the provider's own; update: \"\" goes back to it)")
    .option("--max-concurrent-requests <n>", "requests in flight at once over this connection, 1 to 64 (default 4)")
    .option("--api-key-env <VAR>", "read the provider's API key from this environment variable")
    .option("--api-key-stdin", "read the provider's API key from the first line of stdin");
}

/**
 * `oodle genai connections …`: connections of the workspace to LLM providers (list, create,
 * update, delete, test). The provider key is read from an environment variable or stdin, never
 * from a flag's value, and is never printed (the API returns only its last 4 characters).
 */
export function connectionsCommand(parent: Command): void {
  const connections = parent.command("connections").alias("connection").description("connections to LLM providers (OpenAI-compatible, Anthropic): keys stored encrypted, tested with one call");

  connections
    .command("list")
    .description("the workspace's connections (never their keys)")
    .action(
      action(async (ctx) => {
        const list = await ctx.ops.connections.listConnections();
        emit(ctx.output, list, () => table(["id", "name", "provider", "model", "base URL", "concurrency", "key"], list.map((c) => [c.id, c.name, c.provider, c.defaultModel, c.baseUrl ?? "-", c.maxConcurrentRequests, c.keyHint ? `…${c.keyHint}` : "-"])));
      }),
    );

  settingsOptions(connections.command("create <name>").description("creates a connection; its API key (from --api-key-env or --api-key-stdin) is stored encrypted"))
    .addHelpText(
      "after",
      "\nExamples:\n  OPENAI_API_KEY=sk-… oodle genai connections create openai --provider openai --model gpt-4o-mini --api-key-env OPENAI_API_KEY\n" +
        "  pass show anthropic | oodle genai connections create claude --provider anthropic --model claude-3-5-haiku-latest --api-key-stdin\n" +
        "  echo ollama | oodle genai connections create local --provider openai --base-url http://127.0.0.1:11434/v1 --model llama3.2 --api-key-stdin",
    )
    .action(
      action(async (ctx, name: string) => {
        const input: Record<string, unknown> = { name, ...(await connectionInput(ctx)) };
        if (input.apiKey === undefined) throw new CliError("BAD_USER_INPUT", "give the provider's API key: --api-key-env VAR or --api-key-stdin", "--api-key-env");
        const c = await ctx.ops.connections.createConnection(input);
        emit(ctx.output, c, () => `created connection "${c.name}" (${c.id})\n${connectionText(c)}`);
      }, FLAGS),
    );

  settingsOptions(connections.command("update <connection>").description("changes the given settings; a key given replaces the stored one"))
    .option("--name <name>", "a new name")
    .action(
      action(async (ctx, ref: string) => {
        const input = { id: await ctx.ops.connections.connectionId(ref), ...(ctx.options.name !== undefined ? { name: ctx.options.name } : {}), ...(await connectionInput(ctx)) };
        const c = await ctx.ops.connections.updateConnection(input);
        emit(ctx.output, c, () => `updated connection "${c.name}"\n${connectionText(c)}`);
      }, FLAGS),
    );

  connections
    .command("delete <connection>")
    .description("deletes a connection and its stored key")
    .action(
      action(async (ctx, ref: string) => {
        const r = await ctx.ops.connections.deleteConnection(await ctx.ops.connections.connectionId(ref));
        emit(ctx.output, r, () => `deleted connection "${r.name}"`);
      }),
    );

  connections
    .command("test <connection>")
    .description("calls the provider once (1 output token) with the connection's key and model; exit 1 when it failed")
    .option("--model <model>", "try this model instead of the default")
    .action(
      action(async (ctx, ref: string) => {
        const r = await ctx.ops.connections.testConnection(await ctx.ops.connections.connectionId(ref), ctx.options.model);
        emit(ctx.output, r, () => connectionTestText(r));
        return r.ok ? EXIT.ok : EXIT.server;
      }),
    );
}
