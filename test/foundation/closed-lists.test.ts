import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { GraphQLEnumType } from "graphql";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { App } from "../../src/app.js";
import { OUTCOMES } from "../../src/lib/outcomes.js";
import { schema } from "../../src/graphql-schema.js";
import { CLOSED_COLUMNS, ISOLATIONS, RUN_OUTCOMES, SPAN_KINDS } from "../../src/lib/closed-lists.js";
import { createTestApp, createTestWorkspace } from "../helpers.js";

const RUNNER = fileURLToPath(new URL("../../sandbox/runner_protocol.py", import.meta.url));

// One declaration of each closed list (src/lib/closed-lists.ts): the sandbox, the GraphQL enums
// and the database's CHECK constraints must say the same.
describe("closed lists", () => {
  let app: App;
  beforeAll(() => {
    app = createTestApp();
  });
  afterAll(() => app.close());

  it("sandbox/runner_protocol.py's OUTCOMES equal the TypeScript outcomes, in order", () => {
    // Read with `ast` (not imported: the runner installs seccomp filters when it starts).
    const script = "import ast,json,sys\ntree=ast.parse(open(sys.argv[1]).read())\nprint(json.dumps([ast.literal_eval(n.value) for n in tree.body if isinstance(n, ast.Assign) and any(getattr(t,'id',None)=='OUTCOMES' for t in n.targets)][0]))";
    const python = JSON.parse(execFileSync("python3", ["-c", script, RUNNER], { encoding: "utf8" }));
    expect(python).toEqual([...OUTCOMES]);
    expect(RUN_OUTCOMES).toEqual([...OUTCOMES, "skipped"]);
  });

  it("each list is a GraphQL enum with the same values", () => {
    // The printed schema sorts values by name.
    const byValues = (name: string) => (schema.getType(name) as GraphQLEnumType).getValues().map((v) => v.value).sort();
    expect(schema.getType("RunOutcome")).toBeInstanceOf(GraphQLEnumType);
    expect(byValues("RunOutcome")).toEqual([...RUN_OUTCOMES].sort());
    expect(byValues("SpanKind")).toEqual([...SPAN_KINDS].sort());
    expect(byValues("Isolation")).toEqual([...ISOLATIONS].sort());
    for (const name of ["SpanStatus", "EvaluatorKind", "ExperimentStatus", "ExperimentEvaluatorSource", "ScoreDataType", "EntryPointKind", "ConnectionProvider", "ConnectionErrorCode", "ModelPriceSource"]) {
      expect(schema.getType(name), name).toBeInstanceOf(GraphQLEnumType);
    }
  });

  it("each column holding a list has a CHECK constraint with exactly its values", async () => {
    for (const { table, column, values } of CLOSED_COLUMNS) {
      const rows = await app.prisma.$queryRaw<{ def: string }[]>`
        SELECT pg_get_constraintdef(c.oid) AS def FROM pg_constraint c JOIN pg_class t ON t.oid = c.conrelid
        WHERE t.relname = ${table} AND c.conname = ${`${table}_${column}_check`} AND c.contype = 'c'`;
      expect(rows, `${table}.${column}`).toHaveLength(1);
      expect([...rows[0]!.def.matchAll(/'([^']*)'/g)].map((m) => m[1]), `${table}.${column}`).toEqual([...values]);
    }
  });

  it("the database refuses a value outside the list, whatever path writes it", async () => {
    const { workspace } = await createTestWorkspace(app, "closed-lists");
    await expect(
      app.prisma.$executeRaw`INSERT INTO "Evaluator" (id, "workspaceId", name, kind, "updatedAt") VALUES (gen_random_uuid(), ${workspace.id}::uuid, 'x', 'oracle', now())`,
    ).rejects.toThrow(/Evaluator_kind_check/);
  });

  it("RunHistory refuses an outcome Run would refuse (a replaced run keeps Run's list)", async () => {
    const { workspace } = await createTestWorkspace(app, "closed-lists-history");
    const evaluator = await app.prisma.evaluator.create({ data: { workspaceId: workspace.id, name: "history check", kind: "external" } });
    const insert = (outcome: string) =>
      app.prisma.$executeRaw`INSERT INTO "RunHistory" (id, "workspaceId", "evaluatorId", outcome, "createdAt", reason)
        VALUES (gen_random_uuid(), ${workspace.id}::uuid, ${evaluator.id}::uuid, ${outcome}, now(), 'scores_reposted')`;
    await expect(insert("crashed")).rejects.toThrow(/RunHistory_outcome_check/);
    await expect(insert("user_error")).resolves.toBe(1);
  });
});
