/**
 * Prisma migrations without the native schema engine (the stock CLI would download one: scripts/lib/migrations.ts).
 *
 * Drives `@prisma/schema-engine-wasm` (built for the same Prisma commit as the CLI) through
 * `@prisma/adapter-pg`. It reads and writes the same `prisma/migrations/` folders and
 * `_prisma_migrations` table as `prisma migrate`, so the stock CLI works on the same database
 * wherever its native engine can be downloaded.
 *
 * Usage: tsx scripts/migrate.ts deploy | create <name> | status | diff   (DATABASE_URL from env)
 */
import { migrate, type MigrateCommand } from "./lib/migrations.js";

const [command = "deploy", name] = process.argv.slice(2);
const url = process.env.DATABASE_URL ?? "postgresql://postgres@127.0.0.1:5432/oodle";
if (!["deploy", "create", "status", "diff"].includes(command)) {
  console.error(`unknown command "${command}": use deploy | create <name> | status | diff`);
  process.exit(2);
}
if (command === "create" && !name) {
  console.error("create needs a migration name: tsx scripts/migrate.ts create add_templates");
  process.exit(2);
}
const output = await migrate(url, command as MigrateCommand, name);
console.log(output);
