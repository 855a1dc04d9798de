import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { defaultSandboxPaths, seccompFilterPath } from "../../src/execution/paths.js";
import { preflight, PreflightError } from "../../src/execution/preflight.js";

describe("preflight (fail closed)", () => {
  const paths = defaultSandboxPaths();
  const program = readFileSync(seccompFilterPath());

  it("passes on this machine", async () => {
    await expect(preflight(paths, program)).resolves.toBeUndefined();
  });

  it("refuses without bubblewrap, saying so", async () => {
    await expect(preflight({ ...paths, bwrap: "/nonexistent/bwrap" }, program)).rejects.toThrow(/bubblewrap not found/);
  });

  it("refuses a corrupt seccomp filter", async () => {
    await expect(preflight(paths, new Uint8Array(3))).rejects.toBeInstanceOf(PreflightError);
  });

  it("refuses when the filter does not block sockets", async () => {
    // A valid BPF program that allows everything: `ret SECCOMP_RET_ALLOW`.
    const allowAll = Buffer.from([0x06, 0x00, 0x00, 0x00, 0x00, 0x00, 0xff, 0x7f]);
    await expect(preflight(paths, allowAll)).rejects.toThrow(/seccomp: socket\(AF_INET\) was allowed/);
  });
});
