import { limitFlags, limitOptions, limitsText, type LimitsInput } from "../limit-flags.js";
import { dirname, resolve } from "node:path";
import type { Command } from "commander";
import { action, type CommandContext } from "../context.js";
import { CliError, EXIT } from "../exit-codes.js";
import { jsonOrFile, parseDataFile, readText } from "../inputs.js";
import type { Setting, TemplateRecord } from "../../api-client/operations.js";
import { emit, fields, table } from "../output.js";
import { changedLibraries, FILES, folderDraft, judgeFileOf, pathInFolder, pullTemplate, pushFolder, readFolder } from "../template-folder.js";
import { buildSample, printTryResult, sampleOptions, type SampleFlags } from "./try.js";

/** One setting as a short phrase: `mode (enum all|any, default "all")`. */
export function describeSetting(s: Setting): string {
  const type = s.type === "enum" && s.options ? `enum ${s.options.join("|")}` : s.type;
  const parts = [type, ...(s.required ? ["required"] : []), s.hasDefault ? `default ${JSON.stringify(s.default)}` : "no default"];
  return `${s.name} (${parts.join(", ")})`;
}

/** One score of a judge's output definition as a short phrase: `polite (boolean, higher is better): The reply is polite.` */
export function describeJudgeScore(score: Record<string, unknown>): string {
  const type = score.type === "numeric" ? `numeric ${score.min}..${score.max}` : score.type === "categorical" ? `categorical ${((score.values ?? []) as string[]).join("|")}` : String(score.type);
  const direction = score.higherIsBetter === undefined || score.higherIsBetter === null ? "" : score.higherIsBetter ? ", higher is better" : ", lower is better";
  return `${score.name} (${type}${direction})${score.description ? `: ${score.description}` : ""}`;
}

/** An llm template version's judge for people: the call's bounds, the output definition, then each message in full. */
export function judgeText(judge: unknown): string {
  const j = judgeFileOf(judge);
  return [
    `max output tokens: ${j.maxOutputTokens ?? "default"}; cache: ${j.cacheTtlSeconds === 0 ? "off" : `${j.cacheTtlSeconds ?? "default"} s`}`,
    `output:\n${j.output.map((o) => `  ${describeJudgeScore(o)}`).join("\n")}`,
    `messages:\n${j.messages.map((m, i) => `  [${i}] ${m.role}:\n${m.content.split("\n").map((l) => `    ${l}`).join("\n")}`).join("\n")}`,
  ].join("\n");
}

function templateText(t: TemplateRecord, withCode: boolean): string {
  const v = t.latestVersion;
  const settings = v.params.length ? `settings:\n${v.params.map((s) => `  ${describeSetting(s)}`).join("\n")}` : "settings: none";
  if (t.kind === "llm") {
    return [
      fields([
        ["name", t.name],
        ["id", t.id],
        ["kind", "llm (a judge: its messages go to a connection's model; docs/judges.md)"],
        ["version", v.version],
        ["updated", t.updatedAt],
      ]),
      settings,
      judgeText(v.judge),
    ].join("\n");
  }
  const lines = [
    fields([
      ["name", t.name],
      ["id", t.id],
      ["kind", t.kind],
      ["version", v.version],
      ["entry point", `${v.entryPoint.kind} ${v.entryPoint.name}`],
      ["library pins", Object.keys(v.libraryPins as Record<string, number>).length ? v.libraryPins : "none"],
      ["shared imports", v.sharedImports.length ? v.sharedImports.join(", ") : "none"],
      ["limits", limitsText(t.limits as LimitsInput)],
      ["updated", t.updatedAt],
    ]),
    settings,
  ];
  if (withCode) lines.push("", v.sourceCode);
  return lines.join("\n");
}

/**
 * Fields of a template save from --file (JSON/YAML; `sourceFile` and `judgeFile` relative to it)
 * and flags. `--judge FILE` (JSON or YAML: messages, output, maxOutputTokens, cacheTtlSeconds) is
 * the judge of an llm template; on create it makes the template kind llm.
 */
function templateFields(options: Record<string, any>, creating = false): Record<string, unknown> {
  const input: Record<string, unknown> = {};
  if (options.file) {
    const data = parseDataFile(options.file, "--file");
    if (typeof data !== "object" || data === null || Array.isArray(data)) throw new CliError("BAD_USER_INPUT", "must hold an object (name, sourceCode or sourceFile, params, libraryPins; an llm template: kind llm, judge or judgeFile)", "--file");
    const { sourceFile, judgeFile, ...rest } = data as Record<string, unknown>;
    Object.assign(input, rest);
    if (typeof sourceFile === "string") input.sourceCode = readText(resolve(dirname(options.file), sourceFile), "sourceFile");
    if (typeof judgeFile === "string") input.judge = parseDataFile(resolve(dirname(options.file), judgeFile), "judgeFile");
  }
  if (options.judge !== undefined) {
    if (options.source !== undefined) throw new CliError("BAD_USER_INPUT", "give --source (a code template) or --judge (an llm template), not both", "--judge");
    input.judge = parseDataFile(options.judge, "--judge");
  }
  if (creating && input.judge !== undefined && input.kind === undefined) input.kind = "llm";
  if (options.name !== undefined) input.name = options.name;
  if (options.description !== undefined) input.description = options.description;
  if (options.source !== undefined) input.sourceCode = readText(options.source, "--source");
  if (options.params !== undefined) input.params = jsonOrFile(options.params, "--params");
  if (options.libraryPins !== undefined) input.libraryPins = jsonOrFile(options.libraryPins, "--library-pins");
  const limits = limitFlags(options);
  if (Object.keys(limits).length) input.limits = { ...(input.limits as object | undefined), ...limits };
  return input;
}

async function printValidation(ctx: CommandContext, dir: string): Promise<number> {
  const folder = readFolder(dir);
  const result = await ctx.ops.validateTemplate({ ...folderDraft(folder), values: ctx.options.params ? jsonOrFile(ctx.options.params, "--params") : undefined });
  const issues = result.issues.map((i) => ({ field: pathInFolder(i.path, folder.manifest.settings), apiField: i.path, message: i.message }));
  const unpublished = changedLibraries(folder);
  const judge = folder.kind === "llm" ? judgeFileOf(folder.judge) : null;
  emit(ctx.output, { valid: result.valid, kind: folder.kind, issues, entryPoint: result.entryPoint, sharedImports: result.sharedImports, unpublishedLibraries: unpublished }, () =>
    result.valid && judge
      ? `ok: ${FILES.judge} has ${judge.messages.length} message(s) and ${judge.output.length} score(s) (${judge.output.map((o) => o.name).join(", ")}); ${folder.manifest.settings.length} setting(s)`
      : result.valid
      ? `ok: ${FILES.code} defines ${result.entryPoint!.name === result.entryPoint!.kind ? result.entryPoint!.name : `${result.entryPoint!.kind} ${result.entryPoint!.name}`}; ${folder.manifest.settings.length} setting(s)` +
        (unpublished.length ? `\nnote: push publishes the changed libraries ${unpublished.join(", ")}` : "")
      : `${issues.length} problem(s):\n${issues.map((i) => `  ${i.field}: ${i.message}`).join("\n")}`,
  );
  return result.valid ? EXIT.ok : EXIT.badInput;
}

/** `oodle genai templates …`. */
export function templatesCommand(genai: Command): void {
  const templates = genai.command("templates").description("templates: code (Python) or llm (a judge's messages and output definition) with typed settings, saved as versions");

  templates
    .command("starters [id]")
    .description("the built-in starters with their setting names; with an id, the starter as a template file (each setting's type and default, then the code)")
    .addHelpText("after", "\nExamples:\n  oodle genai templates starters\n  oodle genai templates starters keyword-check")
    .action(
      action(async (ctx, id?: string) => {
        if (id) {
          const starter = await ctx.ops.getStarter(id);
          emit(ctx.output, starter, () => starter.file);
          return;
        }
        const starters = await ctx.ops.listStarters();
        emit(ctx.output, starters, () => table(["id", "name", "settings"], starters.map((s) => [s.id, s.name, s.settingNames.join(", ") || "-"])));
      }),
    );

  templates
    .command("list")
    .description("the workspace's templates")
    .action(
      action(async (ctx) => {
        const list = await ctx.ops.listTemplates();
        emit(ctx.output, list, () =>
          table(["name", "kind", "version", "settings", "updated"], list.map((t) => [t.name, t.kind, t.latestVersionNumber, t.latestVersion.params.map((p) => p.name).join(", ") || "-", t.updatedAt])),
        );
      }),
    );

  templates
    .command("get <name>")
    .description("a template (by name or id): kind, version, settings with types and defaults, pins; --code adds the code; an llm template's output definition and messages")
    .option("--version <n>", "a given version instead of the latest")
    .option("--code", "print the code too")
    .addHelpText("after", '\nExample:\n  oodle genai templates get "Keyword check" --code')
    .action(
      action(async (ctx, name: string) => {
        const t = await ctx.ops.getTemplate(name);
        if (ctx.options.version) t.latestVersion = await ctx.ops.getTemplateVersion(t.id, Number(ctx.options.version));
        emit(ctx.output, t, () => templateText(t, Boolean(ctx.options.code)));
      }),
    );

  const saveOptions = (c: Command) =>
    limitOptions(c)
      .option("--file <file>", "a JSON or YAML file with name, description, sourceCode (or sourceFile, relative to it), params, libraryPins, limits; an llm template: kind llm, judge (or judgeFile, relative to it)")
      .option("--name <name>", "the template's name")
      .option("--description <text>")
      .option("--source <file.py>", "the code")
      .option("--judge <file>", "an llm template's judge, a JSON or YAML file: messages, output, maxOutputTokens, cacheTtlSeconds (docs/judges.md); create makes the template kind llm")
      .option("--params <json|@file>", "the settings list, e.g. '[{\"name\": \"at\", \"type\": \"number\", \"default\": 0.5}]'")
      .option("--library-pins <json|@file>", 'shared-library pins, e.g. \'{"acme_policy": 2}\'');

  saveOptions(templates.command("create [name]").description("creates a template (from --file, flags, or --starter); --judge FILE makes an llm template (a judge)"))
    .option("--starter <id>", "copy a built-in starter (its code and settings)")
    .addHelpText(
      "after",
      "\nExamples:\n  oodle genai templates create --starter keyword-check\n  oodle genai templates create --name 'Word budget' --source budget.py --params @settings.yaml\n" +
        "  oodle genai templates create Politeness --judge judge.yaml --params '[{\"name\": \"model\", \"type\": \"string\", \"default\": \"gpt-4o-mini\"}]'",
    )
    .action(
      action(async (ctx, name?: string) => {
        if (name !== undefined && ctx.options.name !== undefined && name !== ctx.options.name) throw new CliError("BAD_USER_INPUT", `give the name once: "${name}" or --name "${ctx.options.name}"`, "--name");
        const input = templateFields({ ...ctx.options, ...(name !== undefined ? { name } : {}) }, true);
        const t = ctx.options.starter
          ? await ctx.ops.createTemplateFromStarter({ starterId: ctx.options.starter, name: input.name as string | undefined, description: input.description as string | undefined })
          : await ctx.ops.createTemplate(input);
        emit(ctx.output, t, () => `created ${t.kind === "llm" ? "llm template" : "template"} "${t.name}" version ${t.latestVersionNumber} (${t.id})`);
      }),
    );

  saveOptions(templates.command("update <name>").description("changes a template (by name or id); new code, settings or pins make a new version"))
    .addHelpText("after", "\nA change of settings that an evaluator's values would break is refused (exit 4), naming the evaluators.\n\nExample:\n  oodle genai templates update 'Keyword check' --params @settings.yaml")
    .action(
      action(async (ctx, name: string) => {
        const input = templateFields(ctx.options);
        // Limit flags change the keys given and keep the others.
        if (input.limits !== undefined && !ctx.options.file) input.limits = { ...((await ctx.ops.getTemplate(name)).limits as object), ...(input.limits as object) };
        const t = await ctx.ops.updateTemplate(name, input);
        emit(ctx.output, t, () => `template "${t.name}" is at version ${t.latestVersionNumber}`);
      }),
    );

  templates
    .command("delete <name>")
    .description("deletes a template (refused, exit 4, while evaluators run it)")
    .action(
      action(async (ctx, name: string) => {
        const t = await ctx.ops.deleteTemplate(name);
        emit(ctx.output, t, () => `deleted template "${t.name}"`);
      }),
    );

  templates
    .command("pull <name> <dir>")
    .description(`writes ${FILES.code} (an llm template: ${FILES.judge}), ${FILES.manifest} (settings, library pins), ${FILES.shared}/<lib>.py and ${FILES.lock} (version and hash) into DIR`)
    .addHelpText("after", "\nThen: edit, `oodle genai templates test DIR --span span.json`, `oodle genai templates push DIR`.\nLocally: pip install ./python-lib && cd DIR && python -m oodle_eval run evaluate.py --span doc.json")
    .action(
      action(async (ctx, name: string, dir: string) => {
        const { template, files, lock } = await pullTemplate(ctx.ops, name, dir);
        emit(ctx.output, { template: { id: template.id, name: template.name, version: lock.template.version }, dir, files, lock }, () =>
          `pulled "${template.name}" version ${lock.template.version} into ${dir}:\n${files.map((f) => `  ${f}`).join("\n")}`,
        );
      }),
    );

  templates
    .command("push <dir>")
    .description(`validates DIR and saves it as a new version (changed shared libraries are published first); a folder with ${FILES.judge} is an llm template; refused (exit 4) when the server's version moved since the pull`)
    .option("--force", "save even when the server's version moved since the pull")
    .action(
      action(async (ctx, dir: string) => {
        const result = await pushFolder(ctx.ops, dir, { force: Boolean(ctx.options.force) });
        emit(ctx.output, { template: { id: result.template.id, name: result.template.name, version: result.template.latestVersionNumber }, created: result.created, newVersion: result.newVersion, published: result.published }, () =>
          [
            ...result.published.map((p) => `published shared library ${p.name} version ${p.version}`),
            result.created
              ? `created template "${result.template.name}" version ${result.template.latestVersionNumber}`
              : result.newVersion
                ? `saved template "${result.template.name}" version ${result.template.latestVersionNumber}`
                : `nothing changed: template "${result.template.name}" stays at version ${result.template.latestVersionNumber}`,
          ].join("\n"),
        );
      }),
    );

  sampleOptions(
    templates
      .command("test <dir>")
      .description(`runs DIR's code and settings on a sample through the server's sandbox (tryCode), or a judge folder's judge against --connection; stores nothing`)
      .option("--params <json|@file>", "setting values for the run (absent ones take their defaults)")
      .option("--connection <name>", `a judge folder (${FILES.judge}): the connection its judge calls (one real call of its model)`),
  )
    .addHelpText(
      "after",
      `\nShared libraries run as published on the server (push them to try a change).\n--scores (what ctx.score reads) goes into the sample document: it needs --document FILE or --span with a stored span; with an inline span file, or alone, it is refused (exit 2).\n\nExamples:\n  oodle genai templates test ./kw --span span.json --params '{"required": ["refund"]}'\n  oodle genai templates test ./gate --document doc.json --scores '{"JSON check": {"is_json": true}}'\n  oodle genai templates test ./gate --span t1:s1 --scores '{"JSON check": {"is_json": false}}'`,
    )
    .action(
      action(async (ctx, dir: string) => {
        const folder = readFolder(dir);
        const sample = await buildSample(ctx, ctx.options as SampleFlags);
        const params = ctx.options.params ? jsonOrFile(ctx.options.params, "--params") : undefined;
        if (folder.kind === "llm") {
          // A judge folder: one real call of its connection's model on the sample (tryCode stores nothing).
          if (!ctx.options.connection) throw new CliError("BAD_USER_INPUT", `${dir} holds ${FILES.judge}: give --connection NAME, the connection its judge calls (oodle genai connections list)`, "--connection");
          const result = await ctx.ops.tryCode({ judge: folder.judge, paramSpecs: folder.manifest.settings, connectionName: ctx.options.connection, params, ...sample });
          return printTryResult(ctx, result);
        }
        const result = await ctx.ops.tryCode({ sourceCode: folder.sourceCode, paramSpecs: folder.manifest.settings, libraryPins: folder.manifest.libraryPins, params, ...sample });
        return printTryResult(ctx, result);
      }),
    );

  templates
    .command("validate <dir>")
    .description("checks DIR by every save rule (settings, code, imports, pins; an llm folder: judge.yaml) without running or saving; problems by file and field (exit 2)")
    .option("--params <json|@file>", "example setting values to check against the settings")
    .action(action(async (ctx, dir: string) => printValidation(ctx, dir)));
}
