import { defineConfig } from "vitest/config";
import { TEST_DATABASE_URL } from "./test/env.js";

// `npm run test:cluster`: the service on a Redis Cluster of its own (three masters, three
// replicas, started by the suite from redis-server on spare loopback ports; test/cluster), with
// the test database. Kills a master, so it is not part of every `npm test`; .ci/run runs it after
// the fault battery.
export default defineConfig({
  resolve: { alias: { graphql: "graphql/index.js" } },
  test: {
    include: ["test/cluster/**/*.cluster.ts"],
    testTimeout: 600_000,
    hookTimeout: 180_000,
    maxWorkers: 1,
    fileParallelism: false,
    globalSetup: ["test/global-setup.ts"],
    env: { DATABASE_URL: TEST_DATABASE_URL, LOG_LEVEL: "silent" },
  },
});
