/**
 * Prisma migrations through Prisma's own WebAssembly schema engine, for machines where the
 * native engine cannot be downloaded (the stock CLI fetches it even for `generate`; no npm
 * package ships it).
 *
 * Works around four `@prisma/adapter-pg` problems seen when the engine runs through it:
 * a shadow database given as a connection string connects to the main database (we pass
 * host/port/user/password/database separately); the shadow pool must be closed before the
 * shadow database is dropped; the engine keeps timers that hold the process open (we unref
 * them); scripts are split on `;` (we keep migrations free of `$$` bodies).
 */
import { randomUUID } from "node:crypto";
import { mkdir, readFile, readdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { createRequire } from "node:module";
import pg from "pg";
import { PrismaPg } from "@prisma/adapter-pg";
import {
  bindMigrationAwareSqlAdapterFactory,
  ColumnTypeEnum,
  type SqlQuery,
  type SqlResultSet,
  type SqlDriverAdapter,
  type SqlMigrationAwareDriverAdapterFactory,
} from "@prisma/driver-adapter-utils";

/** The commands of scripts/migrate.ts. */
export type MigrateCommand = "deploy" | "create" | "status" | "diff";

const projectRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const schemaPath = path.join(projectRoot, "prisma/schema.prisma");
const migrationsDir = path.join(projectRoot, "prisma/migrations");
const noFilter = { externalTables: [], externalEnums: [] };

/** Connection fields of a postgres URL, given one by one (see module comment). */
function connectionConfig(url: string): pg.ClientConfig {
  const u = new URL(url);
  return {
    host: u.hostname,
    port: Number(u.port || 5432),
    user: decodeURIComponent(u.username || "postgres"),
    password: decodeURIComponent(u.password) || undefined,
    database: decodeURIComponent(u.pathname.replace(/^\//, "")) || "postgres",
  };
}

const PG_CHAR_OID = 18;
const PG_BPCHAR_OID = 1042;

/**
 * The engine reads catalog columns of Postgres type `"char"` (OID 18), which the adapter cannot
 * deserialise: read them as text (BPCHAR) and report them to the engine as Character. The patch
 * goes on the adapter's shared queryable prototype, once, and only in the migration tool.
 */
let charPatched = false;
function patchCharColumns(adapter: SqlDriverAdapter): void {
  if (charPatched) return;
  charPatched = true;
  type Queryable = {
    performIO(query: SqlQuery): Promise<{ fields: { dataTypeID: number }[] }>;
    queryRaw(query: SqlQuery): Promise<SqlResultSet>;
  };
  const proto = Object.getPrototypeOf(Object.getPrototypeOf(adapter)) as Queryable;
  const charColumns = new WeakMap<SqlQuery, number[]>();
  const performIO = proto.performIO;
  const queryRaw = proto.queryRaw;
  proto.performIO = async function (this: Queryable, query) {
    const result = await performIO.call(this, query);
    const indexes: number[] = [];
    result.fields.forEach((field, i) => {
      if (field.dataTypeID === PG_CHAR_OID) {
        field.dataTypeID = PG_BPCHAR_OID;
        indexes.push(i);
      }
    });
    if (indexes.length) charColumns.set(query, indexes);
    return result;
  };
  proto.queryRaw = async function (this: Queryable, query) {
    const result = await queryRaw.call(this, query);
    for (const i of charColumns.get(query) ?? []) result.columnTypes[i] = ColumnTypeEnum.Character;
    return result;
  };
}

/** A migration-aware adapter factory whose shadow database is dropped after its pool is closed. */
function adapterFactory(url: string, opened: SqlDriverAdapter[]): SqlMigrationAwareDriverAdapterFactory {
  const config = connectionConfig(url);
  const main = new PrismaPg(config);
  return {
    provider: main.provider,
    adapterName: main.adapterName,
    async connect() {
      const adapter = await main.connect();
      patchCharColumns(adapter);
      opened.push(adapter);
      return adapter;
    },
    async connectToShadowDb(): Promise<SqlDriverAdapter> {
      const admin = new pg.Client(config);
      await admin.connect();
      const database = `prisma_shadow_${randomUUID().replaceAll("-", "")}`;
      await admin.query(`CREATE DATABASE "${database}"`);
      const adapter = await new PrismaPg({ ...config, database }).connect();
      patchCharColumns(adapter);
      const dispose = adapter.dispose.bind(adapter);
      adapter.dispose = async () => {
        await dispose();
        await admin.query(`DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`);
        await admin.end();
      };
      return adapter;
    },
  };
}

/** Loads the wasm engine by hand: Node 20 cannot `import` a .wasm module without a flag. */
async function loadEngine(): Promise<typeof import("@prisma/schema-engine-wasm")> {
  const require = createRequire(import.meta.url);
  const bgPath = require.resolve("@prisma/schema-engine-wasm/schema_engine_bg");
  const bindings = await import("@prisma/schema-engine-wasm/schema_engine_bg");
  const bytes = await readFile(path.join(path.dirname(bgPath), "schema_engine_bg.wasm"));
  const { instance } = await WebAssembly.instantiate(bytes, { "./schema_engine_bg.js": bindings as never });
  (bindings as unknown as { __wbg_set_wasm(w: unknown): void }).__wbg_set_wasm(instance.exports);
  (instance.exports as { __wbindgen_start?: () => void }).__wbindgen_start?.();
  return bindings as unknown as typeof import("@prisma/schema-engine-wasm");
}

/** The migrations folder as the engine wants it: every `<dir>/migration.sql`, in name order. */
async function migrationsList() {
  await mkdir(migrationsDir, { recursive: true });
  const entries = (await readdir(migrationsDir, { withFileTypes: true }))
    .filter((e) => e.isDirectory())
    .map((e) => e.name)
    .sort();
  const lockPath = path.join(migrationsDir, "migration_lock.toml");
  const lock = await readFile(lockPath, "utf8").catch(() => null);
  return {
    baseDir: migrationsDir,
    lockfile: { path: "migration_lock.toml", content: lock },
    shadowDbInitScript: "",
    migrationDirectories: await Promise.all(
      entries.map(async (dir) => {
        const content = await readFile(path.join(migrationsDir, dir, "migration.sql"), "utf8").then(
          (value) => ({ tag: "ok" as const, value }),
          (error: Error) => ({ tag: "error" as const, value: error.message }),
        );
        return { path: dir, migrationFile: { path: "migration.sql", content } };
      }),
    ),
  };
}

/** Runs `fn` while unref'ing every timer created meanwhile, so the engine cannot hold the process. */
async function withUnrefTimers<T>(fn: () => Promise<T>): Promise<T> {
  const original = globalThis.setTimeout;
  const patched = ((...args: Parameters<typeof setTimeout>) => {
    const timer = original(...args);
    timer.unref?.();
    return timer;
  }) as typeof setTimeout;
  globalThis.setTimeout = Object.assign(patched, original);
  try {
    return await fn();
  } finally {
    globalThis.setTimeout = original;
  }
}

/** Creates the database named in `url` when it does not exist (a fresh machine has only `test`). */
export async function ensureDatabase(url: string): Promise<boolean> {
  const config = connectionConfig(url);
  const admin = new pg.Client({ ...config, database: "postgres" });
  await admin.connect();
  try {
    const found = await admin.query("SELECT 1 FROM pg_database WHERE datname = $1", [config.database]);
    if (found.rowCount) return false;
    await admin.query(`CREATE DATABASE "${String(config.database).replaceAll('"', '""')}"`);
    return true;
  } finally {
    await admin.end();
  }
}

/**
 * Runs one migration command against the database at `url`.
 * - deploy: applies every pending migration of prisma/migrations; returns their names.
 * - create <name>: writes prisma/migrations/<timestamp>_<name>/migration.sql from the schema diff
 *   (after the engine's dev diagnostic, which replays the history on a shadow database).
 * - status: the engine's migration-history diagnostic.
 * - diff: SQL from the migrations to the schema (empty when they agree).
 * @throws the engine's error (message from Prisma) on failure.
 */
export async function migrate(url: string, command: MigrateCommand, name?: string): Promise<string> {
  await ensureDatabase(url);
  const engineModule = await loadEngine();
  const schema = await readFile(schemaPath, "utf8");
  const schemaFiles = { files: [{ path: schemaPath, content: schema }] };
  // Pools the engine opened on the main database: closed at the end so the process can exit.
  const opened: SqlDriverAdapter[] = [];
  const adapter = bindMigrationAwareSqlAdapterFactory(adapterFactory(url, opened));
  return withUnrefTimers(async () => {
    const logs: string[] = [];
    const engine = await engineModule.SchemaEngine.new(
      { datamodels: [[schemaPath, schema]] },
      (log: string) => logs.push(log),
      adapter,
    );
    try {
      const list = await migrationsList();
      switch (command) {
        case "deploy": {
          const out = await engine.applyMigrations({ migrationsList: list, filters: noFilter });
          return out.appliedMigrationNames.length
            ? `applied: ${out.appliedMigrationNames.join(", ")}`
            : "no pending migrations";
        }
        case "status":
          return JSON.stringify(
            await engine.diagnoseMigrationHistory({ migrationsList: list, optInToShadowDatabase: false, filters: noFilter }),
            null,
            2,
          );
        case "diff": {
          const out = await engine.diff({
            from: { tag: "migrations", ...list },
            to: { tag: "schemaDatamodel", ...schemaFiles },
            script: true,
            exitCode: null,
            filters: noFilter,
          });
          return out.stdout ?? "";
        }
        case "create": {
          // As `prisma migrate dev`: bring the database up to date first; the engine only
          // diffs against a database that has every existing migration.
          await engine.applyMigrations({ migrationsList: list, filters: noFilter });
          const diagnostic = await engine.devDiagnostic({ migrationsList: list, filters: noFilter });
          if (diagnostic.action.tag === "reset") {
            throw new Error(`the database needs a reset before a new migration: ${diagnostic.action.reason}`);
          }
          const out = await engine.createMigration({
            draft: false,
            migrationName: name ?? "migration",
            migrationsList: list,
            schema: schemaFiles,
            filters: noFilter,
          });
          if (!out.migrationScript) return "schema and migrations agree: nothing to create";
          const dir = path.join(migrationsDir, out.generatedMigrationName);
          await mkdir(dir, { recursive: true });
          await writeFile(path.join(dir, "migration.sql"), out.migrationScript ?? "");
          if (list.lockfile.content === null) {
            await writeFile(
              path.join(migrationsDir, "migration_lock.toml"),
              '# Please do not edit this file manually\n# It should be added in your version-control system (e.g., Git)\nprovider = "postgresql"\n',
            );
          }
          return `created prisma/migrations/${out.generatedMigrationName}/migration.sql`;
        }
      }
    } finally {
      engine.free();
      await Promise.all(opened.map((a) => a.dispose()));
    }
  });
}
