import { migrate } from "../scripts/lib/migrations.js";
import { TEST_DATABASE_URL } from "./env.js";

/** Applies pending migrations to the test database once per run (cheap when none are pending). */
export default async function setup(): Promise<void> {
  await migrate(TEST_DATABASE_URL, "deploy");
}
