import { defineConfig } from "vitest/config";
import { TEST_DATABASE_URL, TEST_QUEUE_PREFIX, TEST_REDIS_URL } from "./test/env.js";

// Integration tests share one Postgres test database and one Redis; each test creates its own
// workspace, so files may run in parallel (2 cores: two workers).
export default defineConfig({
  // One graphql module for everyone: Pothos and yoga load it through CommonJS, so resolve the
  // tests' ESM imports to the same file (else "Cannot use GraphQLObjectType from another realm").
  resolve: { alias: { graphql: "graphql/index.js" } },
  test: {
    include: ["test/**/*.test.ts"],
    // Timeouts catch hangs, not slowness: on a busy machine (two CPU burners, load 25) a test of
    // several queued stages took over 60 s. Tests that wait poll with their own, shorter bounds.
    testTimeout: 180_000,
    hookTimeout: 180_000,
    maxWorkers: 2,
    globalSetup: ["test/global-setup.ts"],
    env: { DATABASE_URL: TEST_DATABASE_URL, REDIS_URL: TEST_REDIS_URL, QUEUE_PREFIX: TEST_QUEUE_PREFIX, LOG_LEVEL: "silent", RECONCILE_INTERVAL_MS: "0", RETENTION_INTERVAL_MS: "0", GROUP_POLL_INTERVAL_MS: "0", CONNECTION_KEYS: "test-1:BwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwc=" },
  },
});
