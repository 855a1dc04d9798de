import type { Principal } from "../../lib/principal.js";
import { sandboxCapabilities, type SandboxCapabilities } from "./capabilities.js";

export type { SandboxCapabilities, SandboxLimitInfo, SandboxPackageInfo } from "./capabilities.js";

/** What evaluator code can use inside the sandbox: facts of this host, the same for every workspace. */
export function createSandboxService() {
  return {
    /**
     * The sandbox's Python version, importable packages and limits (read once per process).
     * @throws SandboxPackageMissingError when a listed package is not installed (see setup).
     */
    capabilities: (_principal: Principal): SandboxCapabilities => sandboxCapabilities(),
  };
}

/** The sandbox service. */
export type SandboxService = ReturnType<typeof createSandboxService>;
