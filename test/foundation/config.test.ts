import { spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "../../src/config.js";

describe("configuration", () => {
  it("has local defaults and no default secret", () => {
    const config = loadConfig({});
    expect(config.DATABASE_URL).toBe("postgresql://postgres@127.0.0.1:5432/oodle");
    expect(config.PORT).toBe(4000);
    expect(config.LOG_LEVEL).toBe("info");
  });

  it("names each bad variable and its rule", () => {
    let error: unknown;
    try {
      loadConfig({ PORT: "eighty", REDIS_URL: "http://x", LOG_LEVEL: "loud" });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const variables = (error as ConfigError).issues.map((i) => i.variable).sort();
    expect(variables).toEqual(["LOG_LEVEL", "PORT", "REDIS_URL"]);
    expect((error as ConfigError).message).toContain("REDIS_URL: must be a redis:// URL");
  });

  it("takes the sandbox state directory as an absolute path, /run/oodle-sandbox by default", () => {
    expect(loadConfig({}).OODLE_SANDBOX_STATE_DIR).toBe("/run/oodle-sandbox");
    expect(loadConfig({ OODLE_SANDBOX_STATE_DIR: "/var/lib/oodle/sandbox" }).OODLE_SANDBOX_STATE_DIR).toBe("/var/lib/oodle/sandbox");
    expect(() => loadConfig({ OODLE_SANDBOX_STATE_DIR: "run/oodle" })).toThrow("OODLE_SANDBOX_STATE_DIR: must be an absolute path other than /");
  });

  it("stops the process with a message naming the variable", () => {
    const result = spawnSync(process.execPath, ["--import", "tsx", "src/main.ts"], {
      env: { ...process.env, PORT: "70000" },
      encoding: "utf8",
      timeout: 30_000,
    });
    expect(result.status).toBe(1);
    expect(result.stderr).toMatch(/PORT: .*65535/);
  });
});
