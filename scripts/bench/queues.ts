import { Queue } from "bullmq";
import { createRedis } from "../../src/lib/redis.js";
import { queueRegistry, type QueueName } from "../../src/queues/registry.js";

/** Removes every queue of the bench's own `prefix` on the Redis at `redisUrl` (a bench's teardown; errors ignored). */
export async function obliterateBenchQueues(redisUrl: string, prefix: string): Promise<void> {
  const connection = createRedis(redisUrl, "producer");
  for (const name of Object.keys(queueRegistry) as QueueName[]) {
    const queue = new Queue(name, { connection, prefix });
    await queue.obliterate({ force: true }).catch(() => undefined);
    await queue.close();
  }
  connection.disconnect();
}
