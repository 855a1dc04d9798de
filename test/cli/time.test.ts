import { describe, expect, it } from "vitest";
import { ApiError } from "../../src/api-client/http.js";
import { readTimeFlag, readTimeValue, sayTimesRead } from "../../src/cli/time.js";

describe("readTimeFlag", () => {
  const now = Date.parse("2026-12-01T12:00:00Z");

  it("tells epoch seconds, milliseconds, microseconds and nanoseconds apart by size (Oodle's CLI's rule)", () => {
    // The same instant, 2026-09-01T00:00:00Z, in each unit (worked by hand: 1788220800 s).
    expect(readTimeFlag("1788220800", "--start", now)).toMatchObject({ iso: "2026-09-01T00:00:00.000Z", as: "epoch seconds" });
    expect(readTimeFlag("1788220800000", "--start", now)).toMatchObject({ iso: "2026-09-01T00:00:00.000Z", as: "epoch milliseconds" });
    expect(readTimeFlag("1788220800000000", "--start", now)).toMatchObject({ iso: "2026-09-01T00:00:00.000Z", as: "epoch microseconds" });
    expect(readTimeFlag("1788220800123456789", "--start", now)).toMatchObject({ iso: "2026-09-01T00:00:00.123Z", as: "epoch nanoseconds" });
    // The boundaries: below 1e11 seconds, below 1e14 milliseconds, below 1e17 microseconds.
    expect(readTimeFlag("99999999999", "--start", now).as).toBe("epoch seconds");
    expect(readTimeFlag("100000000000", "--start", now)).toMatchObject({ iso: "1973-03-03T09:46:40.000Z", as: "epoch milliseconds" });
    expect(readTimeFlag("100000000000000", "--start", now).as).toBe("epoch microseconds");
    expect(readTimeFlag("100000000000000000", "--start", now).as).toBe("epoch nanoseconds");
  });

  it("reads now, relative times and ISO 8601; anything else names the flag and the rule", () => {
    expect(readTimeFlag("now", "--end", now)).toMatchObject({ iso: "2026-12-01T12:00:00.000Z", as: "now" });
    expect(readTimeFlag("-7d", "--start", now).iso).toBe("2026-11-24T12:00:00.000Z");
    expect(readTimeFlag("2026-11-30T08:00:00+01:00", "--start", now)).toMatchObject({ iso: "2026-11-30T07:00:00.000Z", as: "ISO 8601" });
    for (const bad of ["yesterday", "1.5e12", "-7x", ""]) {
      expect(() => readTimeFlag(bad, "--start", now)).toThrow(expect.objectContaining({ code: "BAD_USER_INPUT", field: "--start", message: expect.stringContaining("told apart by size") }));
    }
    expect(() => readTimeFlag("-99999999999w", "--start", now)).toThrow(/is out of range as relative/);
  });
});

describe("sayTimesRead", () => {
  it("adds what a time flag was read as to the API's issue at the field it filled, and leaves other errors alone", async () => {
    const read = readTimeFlag("1733000000000", "--start");
    const refused = sayTimesRead(() => Promise.reject(new ApiError("BAD_USER_INPUT", "bad", [{ path: "windowStart", message: "the window must be at most 90 days" }])), [{ read, apiField: "windowStart" }]);
    await expect(refused).rejects.toMatchObject({
      code: "BAD_USER_INPUT",
      issues: [{ path: "windowStart", message: 'the window must be at most 90 days; --start "1733000000000" was read as 2024-11-30T20:53:20.000Z (epoch milliseconds)' }],
    });
    const other = new ApiError("NOT_FOUND", "no evaluator", [{ path: "evaluatorId", message: "not found" }]);
    await expect(sayTimesRead(() => Promise.reject(other), [{ read, apiField: "windowStart" }])).rejects.toBe(other);
    await expect(sayTimesRead(() => Promise.resolve(7), [])).resolves.toBe(7);
  });
});

describe("readTimeValue", () => {
  const now = Date.parse("2026-12-01T12:00:00Z");

  it("reads a JSON number by the same magnitude rule as the string (MCP windowStart / windowEnd)", () => {
    // 1788220800 s = 2026-09-01T00:00:00Z, worked by hand.
    expect(readTimeValue(1788220800, "windowStart", now)).toMatchObject({ iso: "2026-09-01T00:00:00.000Z", as: "epoch seconds" });
    expect(readTimeValue(1788220800000, "windowStart", now)).toMatchObject({ iso: "2026-09-01T00:00:00.000Z", as: "epoch milliseconds" });
    expect(readTimeValue(1788220800000000, "windowStart", now)).toMatchObject({ iso: "2026-09-01T00:00:00.000Z", as: "epoch microseconds" });
    expect(readTimeValue(1788220800000000000, "windowStart", now)).toMatchObject({ iso: "2026-09-01T00:00:00.000Z", as: "epoch nanoseconds" });
    expect(readTimeValue(1733000000000, "windowStart", now).iso).toBe(readTimeValue("1733000000000", "windowStart", now).iso);
    expect(readTimeValue("-7d", "windowStart", now).iso).toBe("2026-11-24T12:00:00.000Z");
  });

  it("refuses a number that is not a whole epoch number, naming the field", () => {
    for (const bad of [1.5, -1, Number.NaN, Infinity, 1e20]) {
      expect(() => readTimeValue(bad, "windowEnd", now)).toThrow(expect.objectContaining({ code: "BAD_USER_INPUT", field: "windowEnd", message: expect.stringContaining("whole number") }));
    }
  });
});
