/**
 * A worker process for the restart test: the experiment-batch worker of an app on the queue
 * prefix in QUEUE_PREFIX, with short lock and stall timers. Prints "ready" once it takes jobs;
 * the test then kills it with SIGKILL mid-run.
 */
import { createApp } from "../../src/app.js";
import { loadConfig } from "../../src/config.js";
import { startWorkers } from "../../src/worker.js";

const app = createApp(loadConfig());
await startWorkers(app, { queues: ["experiment-batch"], stalled: { lockDuration: 2_000, stalledInterval: 1_000 } });
process.stdout.write("ready\n");
