import type { Command } from "commander";
import { action } from "../context.js";
import { numberFlag, readText } from "../inputs.js";
import { emit, fields, table } from "../output.js";

/** `oodle genai libraries …`: versioned Python modules that templates import as `shared.<name>`. */
export function librariesCommand(genai: Command): void {
  const libraries = genai.command("libraries").alias("code-libraries").description("shared libraries: versioned Python modules imported as shared.<name>");

  libraries
    .command("list")
    .description("the workspace's shared libraries")
    .action(
      action(async (ctx) => {
        const list = await ctx.ops.listLibraries();
        emit(ctx.output, list, () => table(["name", "latest", "deprecated", "updated"], list.map((l) => [l.name, l.latestVersionNumber, l.deprecated ? "yes" : "no", l.updatedAt])));
      }),
    );

  libraries
    .command("get <name>")
    .description("a library with one version's code (the latest unless --version)")
    .option("--version <n>")
    .action(
      action(async (ctx, name: string) => {
        const l = await ctx.ops.getLibrary(name, ctx.options.version ? numberFlag(ctx.options.version, "--version") : undefined);
        emit(ctx.output, l, () =>
          [
            fields([
              ["name", l.name],
              ["latest version", l.latestVersionNumber],
              ["deprecated", l.deprecated ? `yes${l.deprecationNote ? `: ${l.deprecationNote}` : ""}` : "no"],
              ["pinned by", l.pinnedBy.length ? l.pinnedBy.map((p) => `${p.templateName} (v${p.templateVersions.join(", v")})`).join("; ") : "none"],
              ["version", l.version ? `${l.version.version}: ${l.version.note || "-"}` : "-"],
            ]),
            "",
            l.version?.sourceCode ?? "",
          ].join("\n"),
        );
      }),
    );

  libraries
    .command("publish <name> <file.py>")
    .description("publishes FILE as the next version of the library (the first publish creates it)")
    .option("--note <text>", "what changed")
    .option("--description <text>")
    .addHelpText("after", "\nExample:\n  oodle genai libraries publish acme_policy acme_policy.py --note 'first list'")
    .action(
      action(async (ctx, name: string, file: string) => {
        const v = await ctx.ops.publishLibrary({ name, sourceCode: readText(file, "file"), note: ctx.options.note, description: ctx.options.description });
        emit(ctx.output, v, () => `published ${v.library.name} version ${v.version}`);
      }),
    );

  libraries
    .command("versions <name>")
    .description("every version, newest first")
    .action(
      action(async (ctx, name: string) => {
        const list = await ctx.ops.libraryVersions(name);
        emit(ctx.output, list, () => table(["version", "created", "imports", "note"], list.map((v) => [v.version, v.createdAt, v.imports.join(", ") || "-", v.note || "-"])));
      }),
    );

  libraries
    .command("diff <name> <from> <to>")
    .description("the unified diff between two versions")
    .action(
      action(async (ctx, name: string, from: string, to: string) => {
        const d = await ctx.ops.libraryDiff(name, numberFlag(from, "from"), numberFlag(to, "to"));
        emit(ctx.output, d, () => d.unified || `versions ${d.from} and ${d.to} are the same`);
      }),
    );

  libraries
    .command("deprecate <name>")
    .description("marks a library deprecated (it keeps working); --undo lifts it")
    .option("--note <text>", "why, and what to use instead")
    .option("--undo", "lift the deprecation")
    .action(
      action(async (ctx, name: string) => {
        const l = await ctx.ops.deprecateLibrary({ name, deprecated: !ctx.options.undo, note: ctx.options.note });
        emit(ctx.output, l, () => `${l.name} is ${l.deprecated ? "deprecated" : "no longer deprecated"}`);
      }),
    );

  libraries
    .command("delete <name>")
    .description("deletes a library (refused, exit 4, while template versions pin it)")
    .action(
      action(async (ctx, name: string) => {
        const r = await ctx.ops.deleteLibrary(name);
        emit(ctx.output, r, () => `deleted shared library ${r.name}`);
      }),
    );
}
