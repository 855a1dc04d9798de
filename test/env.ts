/** The test database: its own database on the same server, never the development one. */
export const TEST_DATABASE_URL = process.env.TEST_DATABASE_URL || "postgresql://postgres@127.0.0.1:5432/oodle_test";
/** The Redis of the tests; BullMQ keys are kept apart by a prefix of their own. */
export const TEST_REDIS_URL = process.env.TEST_REDIS_URL || "redis://127.0.0.1:6379";
export const TEST_QUEUE_PREFIX = process.env.TEST_QUEUE_PREFIX || "oodle-test";
