/**
 * The import boundaries of the service, checked by `npm test` (scripts/test.sh):
 * `npx depcruise src --config .dependency-cruiser.cjs`. There is no baseline of known
 * violations: any violation fails.
 *
 * 1. The layers (LAYERS below, bottom first). Why: a folder that imports a folder which imports
 *    it back is one module cut in two: neither can be read, tested or changed alone, and the
 *    evaluation modules (dependencies, evaluation, runs, experiments, ...) had grown such pairs.
 *    Written as a rule on folders, the order stays true: a file may import its own folder and
 *    folders of LOWER layers only; never a folder of a higher layer, nor another folder of its
 *    own layer (folders of one layer are peers that do not know each other). A folder under
 *    src/ that is in no layer is an error too, so a new folder is placed on purpose. A lower
 *    folder that needs something of a higher one declares the small interface it needs
 *    (structural typing) and the composition root (src/app.ts) passes the implementation.
 *    Type-only imports count: a type is a dependency on the folder that declares it.
 * 2. No import cycle between files (`no-circular`).
 * 3. The transport boundary of the service layer (README, "Adding a transport").
 */
const GRAPHQL_PACKAGES = "^node_modules/(graphql|graphql-yoga|@pothos|@graphql-yoga|@escape\\.tech/graphql-armor)/";

/**
 * The layers, bottom first. A name is a folder of src/ (`lib`), a module (`modules/runs`) or a
 * top-level file (`app.ts`).
 */
const LAYERS = [
  // What imports nothing of src/: the Prisma client, and the API's HTTP client (its own rule below).
  ["generated", "api-client"],
  ["lib"],
  ["config.ts"],
  // The sandbox's TypeScript side, the queue registry and the GraphQL toolkit every module's
  // graphql.ts uses (builder, enums, connections, input descriptions; not the composed schema).
  ["execution", "queues", "graphql"],
  // The modules. Leaves first; then the evaluation modules, one per layer: dependencies (edges,
  // gates, input runs) at their bottom, evaluation (the shared completion path) above what it
  // reads, the drivers (runs, experiments, backfills, try-code) above it.
  ["modules/dependencies", "modules/workspaces", "modules/datasets", "modules/sandbox", "modules/retention", "modules/graphiql", "modules/metrics", "modules/connections"],
  ["modules/shared-libraries", "modules/judges"],
  ["modules/templates"],
  ["modules/evaluators"],
  ["modules/spans"],
  // The documents of traces and sessions (pure: built from spans/document.ts and conversation.ts),
  // which the evaluation core and the drivers build and pass on.
  ["modules/groups"],
  ["modules/evaluation"],
  ["modules/runs"],
  ["modules/posted-scores", "modules/experiments", "modules/monitors", "modules/otlp"],
  ["modules/backfills", "modules/try-code", "modules/reconcile"],
  // Composition and transports: the GraphQL schema (every module's graphql.ts), the composition
  // root, the CLI (over the API client); the MCP server (reuses CLI commands); the HTTP server
  // and the workers; the process entries.
  ["graphql-schema.ts", "app.ts", "cli"],
  ["mcp"],
  ["server.ts", "worker.ts"],
  ["main.ts", "oodle.ts"],
];

/** The path regex of a layer's folder or file. */
function pathOf(name) {
  const escaped = name.replace(/[.]/g, "\\.");
  return name.endsWith(".ts") ? `^src/${escaped}$` : `^src/${escaped}/`;
}

/** One rule per folder: nothing of a higher layer, nothing of another folder of its own layer. */
const layerRules = LAYERS.flatMap((layer, index) =>
  layer.map((name) => {
    const above = LAYERS.slice(index + 1).flat();
    const peers = layer.filter((other) => other !== name);
    return {
      name: `layer:${name}`,
      comment: `${name} (layer ${index} of .dependency-cruiser.cjs's LAYERS) imports its own folder and lower layers only: ${[...above, ...peers].join(", ")} stand above it or beside it.`,
      severity: "error",
      from: { path: pathOf(name) },
      to: { path: [...above, ...peers].map(pathOf) },
    };
  }),
);

module.exports = {
  forbidden: [
    ...layerRules,
    {
      name: "every-folder-has-a-layer",
      comment: "Each folder and top-level file of src/ is in one of LAYERS: add a new one there, where its imports put it.",
      severity: "error",
      from: { path: "^src/", pathNot: LAYERS.flat().map(pathOf) },
      to: {},
    },
    {
      name: "no-circular",
      comment: "No import cycle between files either (a cycle inside one folder is one file cut in two).",
      severity: "error",
      from: {},
      to: { circular: true },
    },
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
        "A module's graphql.ts imports only the builder (src/graphql), other modules' GraphQL refs, its own service's types and its own schemas (and src/lib): every rule and read lives in a service. A module with more than one service names them <area>-service.ts / <area>-schemas.ts (judges/price-service.ts).",
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
          "^src/modules/$1/[a-z]+-(service|schemas)\\.ts$",
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
