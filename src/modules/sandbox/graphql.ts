import { builder } from "../../graphql/builder.js";
import type { SandboxCapabilities, SandboxLimitInfo, SandboxPackageInfo } from "./service.js";

const SandboxPackageRef = builder.objectRef<SandboxPackageInfo>("SandboxPackage").implement({
  description: "A library evaluator code can import inside the sandbox (read-only, from Debian).",
  fields: (t) => ({
    name: t.exposeString("name", { description: "The import name, e.g. numpy." }),
    version: t.exposeString("version"),
    debianPackage: t.exposeString("debianPackage"),
  }),
});

const SandboxLimitRef = builder.objectRef<SandboxLimitInfo>("SandboxLimit").implement({
  description: "A resource limit of one evaluator run: its default, the ceiling a caller may not pass, and the smallest value.",
  fields: (t) => ({
    name: t.exposeString("name"),
    unit: t.exposeString("unit", { description: "ms, bytes or count." }),
    default: t.exposeFloat("default"),
    ceiling: t.exposeFloat("ceiling"),
    min: t.exposeFloat("min"),
  }),
});

const SandboxCapabilitiesRef = builder.objectRef<SandboxCapabilities>("SandboxCapabilities").implement({
  description: "What evaluator code can use inside the sandbox.",
  fields: (t) => ({
    pythonVersion: t.exposeString("pythonVersion"),
    packages: t.field({
      type: [SandboxPackageRef],
      description: "Importable besides the standard library and oodle_eval.",
      resolve: (c) => c.packages,
    }),
    limits: t.field({ type: [SandboxLimitRef], resolve: (c) => c.limits }),
  }),
});

builder.queryField("sandboxCapabilities", (t) =>
  t.field({
    type: SandboxCapabilitiesRef,
    description: "The sandbox's Python version, importable packages with versions, and limits.",
    resolve: (_root, _args, ctx) => ctx.services.sandbox.capabilities(ctx.principal),
  }),
);
