import { encodeGlobalID } from "@pothos/plugin-relay";
import { builder } from "../../graphql/builder.js";
import { describedBy } from "../../graphql/input-descriptions.js";
import { uuidOrNil } from "../../lib/uuid.js";
import { createDatasetInputSchema } from "./schemas.js";
import type { BadLine, ImportReport, StreamableFile } from "./service.js";

/** A dataset of the caller's workspace. */
export const DatasetRef = builder.prismaNode("Dataset", {
  id: { field: "id" },
  findUnique: (id, ctx) => ({ id: uuidOrNil(id), workspaceId: ctx.principal.workspaceId }),
  description: "A named set of examples: inputs, the application's outputs and traces, expected outputs, context and metadata.",
  fields: (t) => ({
    name: t.exposeString("name"),
    description: t.exposeString("description"),
    itemCount: t.exposeInt("itemCount"),
    items: t.relatedConnection("items", { cursor: "id", description: "The items in import order.", query: { orderBy: { position: "asc" } } }),
    experiments: t.relatedConnection("experiments", { cursor: "id", description: "Experiments on this dataset, newest first.", query: { orderBy: [{ createdAt: "desc" }, { id: "desc" }] } }),
    createdAt: t.expose("createdAt", { type: "DateTime" }),
    updatedAt: t.expose("updatedAt", { type: "DateTime" }),
  }),
});

/** One item of a dataset (the items.jsonl shape). */
export const DatasetItemRef = builder.prismaNode("DatasetItem", {
  id: { field: "id" },
  findUnique: (id, ctx) => ({ id: uuidOrNil(id), workspaceId: ctx.principal.workspaceId }),
  description: "One example of a dataset, as imported (shared/data items.jsonl shape).",
  fields: (t) => ({
    position: t.exposeInt("position", { description: "0-based order in the dataset." }),
    externalId: t.exposeString("externalId", { nullable: true, description: "The `id` of the imported line." }),
    input: t.expose("input", { type: "JSON", nullable: true }),
    output: t.expose("output", { type: "JSON", nullable: true, description: "The application's answer under evaluation." }),
    expectedOutput: t.expose("expectedOutput", { type: "JSON", nullable: true, description: "ctx.expected_output in an experiment." }),
    context: t.expose("context", { type: "JSON", nullable: true, description: "The span attribute `context` in an experiment." }),
    toolCalls: t.expose("toolCalls", { type: "JSON", nullable: true, description: "The application's tool calls: [{name, arguments}]." }),
    expectedToolCalls: t.expose("expectedToolCalls", { type: "JSON", nullable: true }),
    traceSpans: t.expose("traceSpans", { type: "JSON", nullable: true, description: "The application's own spans, when imported." }),
    metadata: t.expose("metadata", { type: "JSON" }),
  }),
});

const BadLineRef = builder.objectRef<BadLine>("BadLine").implement({
  description: "A line of an import that was not imported.",
  fields: (t) => ({
    line: t.exposeInt("line", { description: "1-based line number." }),
    message: t.exposeString("message"),
  }),
});

builder.queryFields((t) => ({
  datasets: t.prismaConnection({
    type: "Dataset",
    cursor: "id",
    description: "The workspace's datasets, oldest first.",
    // Then id: a cursor on a creation time that others share (one millisecond) would repeat rows on the next page.
    resolve: (query, _root, _args, ctx) =>
      ctx.prisma.dataset.findMany({ ...query, where: { workspaceId: ctx.principal.workspaceId }, orderBy: [{ createdAt: "asc" }, { id: "asc" }] }),
  }),
  dataset: t.prismaField({
    type: "Dataset",
    description: "A dataset by id or by name.",
    args: { id: t.arg.globalID({ for: DatasetRef }), name: t.arg.string() },
    resolve: async (query, _root, args, ctx) => {
      const found = await ctx.services.datasets.lookupDataset(ctx.principal, { id: args.id?.id, name: args.name });
      return ctx.prisma.dataset.findUniqueOrThrow({ ...query, where: { id: found.id } });
    },
  }),
}));

/** The field builder of a payload that holds a dataset id. */
type PayloadFieldBuilder = PothosSchemaTypes.ObjectFieldBuilder<typeof builder extends PothosSchemaTypes.SchemaBuilder<infer T> ? T : never, { id: string }>;

const createInput = describedBy(createDatasetInputSchema);
builder.relayMutationField(
  "createDataset",
  { inputFields: (t) => ({ name: t.string({ required: true, ...createInput("name") }), description: t.string(createInput("description")) }) },
  { resolve: (_root, { input }, ctx) => ctx.services.datasets.createDataset(ctx.principal, { name: input.name, ...(input.description != null ? { description: input.description } : {}) }) },
  {
    outputFields: (t: PayloadFieldBuilder) => ({
      dataset: t.prismaField({ type: "Dataset", resolve: (query, p, _a, ctx) => ctx.prisma.dataset.findUniqueOrThrow({ ...query, where: { id: p.id } }) }),
    }),
  },
);

builder.relayMutationField(
  "importDataset",
  {
    description: "Imports JSON Lines into a dataset, streamed, in one transaction.",
    inputFields: (t) => ({
      name: t.string({ required: true, description: "The dataset: created when the workspace has none by this name, else appended to." }),
      description: t.string({ description: "The description of a dataset this import creates." }),
      file: t.field({ type: "File", required: true, description: "JSON Lines in the shape of shared/data items.jsonl (multipart upload)." }),
      skipBadLines: t.boolean({
        defaultValue: false,
        description: "false (default): a bad line imports nothing and every bad line is reported; true: bad lines are skipped and reported, the rest imported.",
      }),
    }),
  },
  {
    resolve: (_root, { input }, ctx) =>
      ctx.services.datasets.importItems(ctx.principal, { name: input.name, description: input.description, mode: input.skipBadLines ? "skip" : "abort" }, input.file as unknown as StreamableFile),
  },
  {
    outputFields: (t: PothosSchemaTypes.ObjectFieldBuilder<typeof builder extends PothosSchemaTypes.SchemaBuilder<infer T> ? T : never, ImportReport>) => ({
      dataset: t.prismaField({ type: "Dataset", resolve: (query, r, _a, ctx) => ctx.prisma.dataset.findUniqueOrThrow({ ...query, where: { id: r.datasetId } }) }),
      imported: t.exposeInt("imported", { description: "Items added by this import." }),
      badLines: t.field({ type: [BadLineRef], description: "Bad lines (the first 100), skipped.", resolve: (r) => r.badLines }),
      badLineCount: t.exposeInt("badLineCount"),
    }),
  },
);

builder.relayMutationField(
  "deleteDataset",
  { inputFields: (t) => ({ id: t.globalID({ required: true, for: DatasetRef }) }) },
  {
    resolve: async (_root, { input }, ctx) => {
      const deleted = await ctx.services.datasets.deleteDataset(ctx.principal, input.id.id);
      return { id: deleted.id, name: deleted.name };
    },
  },
  {
    outputFields: (t: PothosSchemaTypes.ObjectFieldBuilder<typeof builder extends PothosSchemaTypes.SchemaBuilder<infer T> ? T : never, { id: string; name: string }>) => ({
      deletedId: t.id({ description: "The global id of the deleted dataset (its items, experiments, runs and scores are gone).", resolve: (p) => encodeGlobalID("Dataset", p.id) }),
      name: t.exposeString("name"),
    }),
  },
);
