/**
 * The worker process of the fault suite: every queue, short lock and stall timers (a killed
 * worker's jobs are taken over within seconds), the reconciler on (RECONCILE_* from the
 * environment). Prints "ready" once it takes jobs; the suite kills it with SIGKILL.
 */
import { createApp } from "../../src/app.js";
import { loadConfig } from "../../src/config.js";
import { startWorkers } from "../../src/worker.js";

const app = createApp(loadConfig());
await startWorkers(app, { stalled: { lockDuration: 3_000, stalledInterval: 1_500 } });
process.stdout.write("ready\n");
