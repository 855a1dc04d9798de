import { randomUUID } from "node:crypto";
import type { App } from "../../src/app.js";
import type { Clock } from "../../src/lib/clock.js";
import { writeSyntheticRuns, type SyntheticRuns } from "../../scripts/bench/monitors-data.js";
import { createTestWorkspace } from "../helpers.js";

/** A clock the test moves: `set` and `advance` (ms). */
export function manualClock(start: Date): Clock & { set(at: Date): void; advance(ms: number): void } {
  let now = start.getTime();
  return {
    now: () => new Date(now),
    set: (at) => (now = at.getTime()),
    advance: (ms) => (now += ms),
  };
}

/** A time on a multiple of `cadenceSeconds` (a window end), `back` cadences before the real now. */
export function alignedEnd(cadenceSeconds: number, back = 0): Date {
  const c = cadenceSeconds * 1000;
  return new Date(Math.floor(Date.now() / c) * c - back * c);
}

const SOURCE = 'def evaluate(ctx):\n    return EvaluationResult(scores=[Score(name="helpful", value=True)])\n';

/** A workspace with a code evaluator (template version 1) and a writer of synthetic runs for it. */
export async function monitorFixture(app: App, label: string) {
  const ws = await createTestWorkspace(app, label);
  const principal = { workspaceId: ws.workspace.id, apiKeyId: ws.apiKey.id };
  const { template } = await app.services.templates.createTemplate(principal, { name: `T ${label}`, sourceCode: SOURCE });
  const evaluator = await app.services.evaluators.createEvaluator(principal, { name: `E ${label}`, templateId: template.id });
  const versionId = async (version: number) => (await app.prisma.templateVersion.findUniqueOrThrow({ where: { templateId_version: { templateId: template.id, version } } })).id;
  return {
    ws,
    principal,
    template,
    evaluator,
    versionId,
    /** Writes synthetic runs of the evaluator (version 1 unless told). */
    async runs(spec: Omit<SyntheticRuns, "workspaceId" | "evaluatorId" | "templateVersionId" | "tag" | "scoreName"> & { version?: number; scoreName?: string }) {
      return writeSyntheticRuns(app.prisma, {
        workspaceId: ws.workspace.id,
        evaluatorId: evaluator.id,
        templateVersionId: await versionId(spec.version ?? 1),
        scoreName: spec.scoreName ?? "helpful",
        tag: randomUUID().slice(0, 8),
        ...spec,
      });
    },
  };
}
