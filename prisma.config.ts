import { defineConfig } from "prisma/config";

// Used by `prisma generate` only; migrations go through scripts/migrate.ts (offline schema engine).
export default defineConfig({
  schema: "prisma/schema.prisma",
  migrations: { path: "prisma/migrations" },
});
