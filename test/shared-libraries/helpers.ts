import type { App } from "../../src/app.js";

/** The cookbook's "Use a shared library" library, with a banned-phrase list of one's choice. */
export function acmePolicy(banned: string[]): string {
  return [
    "from oodle_eval.v1 import metrics",
    "",
    `BANNED = ${JSON.stringify(banned)}`,
    "",
    "",
    "def policy_check(ctx):",
    '    return metrics.keyword_check(ctx, forbidden=BANNED, name="policy_ok")',
    "",
  ].join("\n");
}

/** The cookbook's evaluator that imports acme_policy, verbatim. */
export const COOKBOOK_EVALUATOR = [
  "from shared.acme_policy import policy_check",
  "from oodle_eval.v1 import metrics",
  "",
  "",
  "def evaluate(ctx):",
  "    return EvaluationResult(scores=policy_check(ctx) + metrics.pii_leak(ctx))",
  "",
].join("\n");

/**
 * Inserts a live template with one version pinning `pins` straight into the database (the
 * templates feature's own save path is not needed to test pins here).
 */
export async function insertPinningTemplate(app: App, workspaceId: string, name: string, pins: Record<string, number>) {
  return app.prisma.template.create({
    data: {
      workspaceId,
      name,
      liveName: name,
      latestVersion: 1,
      versions: {
        create: {
          version: 1,
          sourceCode: COOKBOOK_EVALUATOR,
          params: [],
          libraryPins: pins,
          entryPointKind: "evaluate",
          entryPointName: "evaluate",
        },
      },
    },
  });
}
