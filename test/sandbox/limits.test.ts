import { describe, expect, it } from "vitest";
import { LIMIT_SPECS, LimitError, resolveLimits, RUNNER_CPU_HEADROOM_MS } from "../../src/execution/limits.js";

describe("limits", () => {
  it("has the documented defaults", () => {
    const limits = resolveLimits();
    expect(limits.cpuTimeMs).toBe(5_000);
    expect(limits.memoryBytes).toBe(256 * 1024 * 1024);
    expect(limits.outputBytes).toBe(64 * 1024);
  });

  it("lets a caller lower a limit", () => {
    expect(resolveLimits({ cpuTimeMs: 100 }).cpuTimeMs).toBe(100);
  });

  it("accepts a limit at its ceiling", () => {
    expect(resolveLimits({ memoryBytes: LIMIT_SPECS.memoryBytes.ceiling }).memoryBytes).toBe(LIMIT_SPECS.memoryBytes.ceiling);
  });

  it.each(Object.keys(LIMIT_SPECS))("refuses %s above its ceiling, naming it", (name) => {
    const spec = LIMIT_SPECS[name as keyof typeof LIMIT_SPECS];
    const attempt = () => resolveLimits({ [name]: spec.ceiling + 1 });
    expect(attempt).toThrow(LimitError);
    expect(attempt).toThrow(new RegExp(`limit ${name}: .*ceiling`));
  });

  it("refuses unknown limits, non-integers and zero", () => {
    expect(() => resolveLimits({ nope: 1 } as never)).toThrow(/nope/);
    expect(() => resolveLimits({ cpuTimeMs: 1.5 })).toThrow(/cpuTimeMs/);
    expect(() => resolveLimits({ outputBytes: 0 })).toThrow(/outputBytes/);
  });

  it("refuses a runner lifetime CPU that could not cover one item, naming runnerCpuTimeMs", () => {
    // With these, every runner would retire before its first item and execute() would start
    // runners forever.
    for (const limits of [{ cpuTimeMs: 100, runnerCpuTimeMs: 1_000 }, { runnerCpuTimeMs: 5_000 }, { cpuTimeMs: 60_000, runnerCpuTimeMs: 60_000 }]) {
      const attempt = () => resolveLimits(limits);
      expect(attempt).toThrow(LimitError);
      expect(attempt).toThrow(/limit runnerCpuTimeMs: .*cpuTimeMs/);
    }
    expect(resolveLimits({ cpuTimeMs: 500, runnerCpuTimeMs: 500 + RUNNER_CPU_HEADROOM_MS }).runnerCpuTimeMs).toBe(2_000);
  });
});
