import { defineConfig } from "vitest/config";

// `npm run test:faults`: the fault battery (test/faults), with its own Postgres and Redis started
// by the suite on spare ports. Too slow for every `npm test`; .ci/run runs it after the tests.
export default defineConfig({
  resolve: { alias: { graphql: "graphql/index.js" } },
  test: {
    include: ["test/faults/**/*.fault.ts"],
    testTimeout: 600_000,
    hookTimeout: 180_000,
    maxWorkers: 1,
    fileParallelism: false,
    env: { LOG_LEVEL: "silent" },
  },
});
