/**
 * The boundary rule of the service layer (README, "Adding a transport"), checked by
 * `npm test` (scripts/test.sh): `npx depcruise src --config .dependency-cruiser.cjs`. There is no
 * baseline of known violations: any violation fails.
 */
const GRAPHQL_PACKAGES = "^node_modules/(graphql|graphql-yoga|@pothos|@graphql-yoga|@escape\\.tech/graphql-armor)/";

module.exports = {
  forbidden: [
    {
      name: "no-graphql-in-services",
      comment:
        "Services, schemas and the rest of a module are transport-neutral: only a module's graphql*.ts adapters (and src/graphql, src/server.ts) speak GraphQL. Return raw ids and throw AppErrors; the GraphQL adapter encodes global ids.",
      severity: "error",
      // A module's graphql*.ts and its HTTP plugins (plugin.ts, http.ts: yoga routes) are adapters.
      from: { path: "^src/(modules|lib|queues|execution)/", pathNot: "^src/modules/[^/]+/([^/]*graphql[^/]*|plugin|http)\\.ts$" },
      to: { path: [GRAPHQL_PACKAGES, "^src/graphql/", "^src/modules/[^/]+/[^/]*graphql[^/]*\\.ts$"] },
    },
    {
      name: "graphql-adapter-imports",
      comment:
        "A module's graphql.ts imports only the builder (src/graphql), other modules' GraphQL refs, its own service's types and its own schemas (and src/lib): every rule and read lives in a service.",
      severity: "error",
      from: { path: "^src/modules/([^/]+)/[^/]*graphql[^/]*\\.ts$" },
      to: {
        pathNot: [
          "^node_modules/",
          "^src/graphql/",
          "^src/lib/",
          "^src/generated/",
          "^src/modules/[^/]+/[^/]*graphql[^/]*\\.ts$",
          "^src/modules/$1/(service|schemas)\\.ts$",
        ],
      },
    },
    {
      name: "api-client-stands-alone",
      comment:
        "src/api-client is a client of the API over HTTP (schema.graphql is its only contract): it imports no service, module, GraphQL schema code or CLI/MCP adapter, so the CLI and MCP never reach past the API.",
      severity: "error",
      from: { path: "^src/api-client/" },
      to: { path: "^src/", pathNot: "^src/api-client/" },
    },
    {
      name: "sandbox-only-through-the-core",
      comment:
        "The drivers of an evaluation (live runs, experiments, backfills, tryCode) reach an executor only through the evaluation core (src/modules/evaluation/evaluate-batch.ts): they import no runtime code of src/execution (types of results are allowed) and neither the executors nor the run preparer, so every path gates, runs and classifies alike.",
      severity: "error",
      from: { path: "^src/modules/(runs|experiments|backfills|try-code)/" },
      // The limits' schema (input validation) is no way to run anything.
      to: { path: "^src/execution/", pathNot: "^src/execution/evaluator-limits\\.ts$", dependencyTypesNot: ["type-only"] },
    },
    {
      name: "executors-behind-the-core",
      comment: "Only the core itself and the composition root (src/app.ts) import the executors and the run preparer.",
      severity: "error",
      from: { path: "^src/", pathNot: ["^src/modules/evaluation/", "^src/app\\.ts$"] },
      to: { path: "^src/modules/evaluation/(executors|prepare)\\.ts$" },
    },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    exclude: { path: "^src/generated/" },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    enhancedResolveOptions: { exportsFields: ["exports"], conditionNames: ["import", "require", "node", "default", "types"], extensions: [".ts", ".js", ".d.ts"] },
  },
};
