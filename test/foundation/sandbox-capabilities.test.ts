import { execFileSync } from "node:child_process";
import { afterAll, describe, expect, it } from "vitest";
import { LIMIT_SPECS } from "../../src/execution/limits.js";
import { createTestApp, createTestWorkspace, graphqlClient } from "../helpers.js";

const app = createTestApp();
const client = graphqlClient(app);
afterAll(() => app.close());

const query = "{ sandboxCapabilities { pythonVersion packages { name version debianPackage } limits { name unit default ceiling min } } }";

describe("sandboxCapabilities", () => {
  it("answers the interpreter's version, the curated packages with the host's versions, and the limits", async () => {
    const { secret } = await createTestWorkspace(app, "caps");
    const res = await client.request(query, {}, secret);
    expect(res.errors).toBeUndefined();
    const caps = res.data!.sandboxCapabilities;
    expect(caps.pythonVersion).toBe(execFileSync("/usr/bin/python3.11", ["-c", "import platform; print(platform.python_version())"], { encoding: "utf8" }).trim());
    const byName = Object.fromEntries(caps.packages.map((p: { name: string }) => [p.name, p]));
    expect(Object.keys(byName)).toEqual(expect.arrayContaining(["phonenumbers", "jsonschema", "yaml", "dateutil", "regex", "numpy"]));
    // The version the host's Python itself reports for each package.
    for (const name of ["phonenumbers", "jsonschema", "yaml", "dateutil", "regex", "numpy"]) {
      const host = execFileSync("/usr/bin/python3.11", ["-c", `import importlib.metadata as m, sys; print(m.version(sys.argv[1]))`, { yaml: "PyYAML", dateutil: "python-dateutil" }[name] ?? name], { encoding: "utf8" }).trim();
      expect(byName[name].version, name).toBe(host);
    }
    expect(byName.numpy.debianPackage).toBe("python3-numpy");
    expect(caps.limits).toContainEqual({ name: "cpuTimeMs", unit: "ms", ...LIMIT_SPECS.cpuTimeMs });
    expect(caps.limits).toContainEqual({ name: "memoryBytes", unit: "bytes", ...LIMIT_SPECS.memoryBytes });
    expect(caps.limits).toContainEqual({ name: "openFiles", unit: "count", ...LIMIT_SPECS.openFiles });
  });

  it("needs a workspace key", async () => {
    const res = await client.request(query);
    expect(res.status).toBe(401);
  });
});
