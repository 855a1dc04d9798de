import { Readable } from "node:stream";
import type { Dataset } from "../../generated/prisma/client.js";
import { BadUserInputError, NotFoundError } from "../../lib/errors.js";
import type { Logger } from "../../lib/logger.js";
import type { PrismaClient } from "../../lib/prisma.js";
import { parseIssues } from "../../lib/validation.js";
import { idOrName, type IdOrName } from "../../lib/id-or-name.js";
import { isUuid } from "../../lib/uuid.js";
import { withUniqueName } from "../../lib/unique-violation.js";
import type { Principal } from "../../lib/principal.js";
import { importJsonLines, type ImportReport } from "./importer.js";
import { fileToReadable, type StreamableFile } from "./upload-stream.js";

export type { BadLine, ImportReport } from "./importer.js";
export type { StreamableFile } from "./upload-stream.js";
import { createDatasetInputSchema, datasetDescriptionSchema, datasetNameSchema, type BadLineMode } from "./schemas.js";

/**
 * Datasets of a workspace and their items. Items are added by importing JSON Lines in the shape
 * of shared/data (streamed, one transaction per import) and are not edited one by one, so an
 * experiment's item positions stay meaningful. Every read and write is scoped to the workspace.
 */
export function createDatasetService(deps: { prisma: PrismaClient; logger: Logger }) {
  const { prisma, logger } = deps;

  /** A dataset of the workspace by id or name. @throws NotFoundError. */
  async function getDataset(workspaceId: string, by: { id?: string; name?: string }): Promise<Dataset> {
    const found =
      by.id !== undefined
        ? isUuid(by.id)
          ? await prisma.dataset.findFirst({ where: { id: by.id, workspaceId } })
          : null
        : by.name !== undefined
          ? await prisma.dataset.findUnique({ where: { workspaceId_name: { workspaceId, name: by.name } } })
          : null;
    if (!found) throw new NotFoundError("dataset", String(by.id ?? by.name));
    return found;
  }

  return {
    getDataset,

    /** A dataset by id or by name: exactly one of them. @throws BadUserInputError for both or neither; NotFoundError. */
    lookupDataset: (principal: Principal, by: IdOrName): Promise<Dataset> => getDataset(principal.workspaceId, idOrName(by)!),

    /** Creates an empty dataset. @throws BadUserInputError (bad or taken name). */
    async createDataset(principal: Principal, input: unknown): Promise<Dataset> {
      const { data, issues } = parseIssues(createDatasetInputSchema, input);
      if (!data) throw new BadUserInputError(issues);
      return withUniqueName("a dataset", data.name, () =>
        prisma.dataset.create({ data: { workspaceId: principal.workspaceId, name: data.name, description: data.description ?? "" } }),
      );
    },

    /**
     * Imports items.jsonl into the dataset `name` (created when the workspace has none by that
     * name, else appended to), read from a Node stream or an uploaded file (a WHATWG `File`, or
     * anything with its `stream()`). See {@link importJsonLines} for streaming and the bad-line modes.
     */
    async importItems(principal: Principal, input: { name: unknown; description?: unknown; mode?: BadLineMode }, source: Readable | StreamableFile): Promise<ImportReport> {
      const stream = source instanceof Readable ? source : fileToReadable(source);
      const name = parseIssues(datasetNameSchema, input.name, "name");
      const description = input.description === undefined || input.description === null ? { data: undefined, issues: [] } : parseIssues(datasetDescriptionSchema, input.description, "description");
      const issues = [...name.issues, ...description.issues];
      if (issues.length || name.data === null) {
        stream.destroy();
        throw new BadUserInputError(issues);
      }
      const started = performance.now();
      const report = await importJsonLines(prisma, { workspaceId: principal.workspaceId, name: name.data, description: description.data ?? undefined }, stream, input.mode ?? "abort");
      logger.info({ datasetId: report.datasetId, imported: report.imported, badLines: report.badLineCount, ms: Math.round(performance.now() - started) }, "dataset import");
      return report;
    },

    /** Deletes a dataset with its items, its experiments and their runs, current and replaced (RunHistory has no foreign keys). */
    async deleteDataset(principal: Principal, id: string): Promise<Dataset> {
      const dataset = await getDataset(principal.workspaceId, { id });
      await prisma.$transaction(async (tx) => {
        await tx.$executeRaw`DELETE FROM "RunHistory" WHERE "experimentId" IN (SELECT id FROM "Experiment" WHERE "datasetId" = ${dataset.id}::uuid)`;
        await tx.dataset.delete({ where: { id: dataset.id } });
      });
      return dataset;
    },
  };
}

/** The datasets service. */
export type DatasetService = ReturnType<typeof createDatasetService>;
