import { LRUCache } from "lru-cache";
import type { EvaluatorLimits, ExecuteKey } from "../../execution/index.js";
import type { SharedLibraryService } from "../shared-libraries/service.js";
import { inspectSource, type SourceInspector } from "../templates/inspect-source.js";

/** What a run needs of a template version. */
export interface RunnableVersion {
  id: string;
  sourceCode: string;
  /** Library name → pinned version. */
  libraryPins: unknown;
  /** The libraries the source imports directly, when stored on save. */
  sharedImports?: string[] | null;
  /** An llm template version's judge (TemplateVersion.judge); null or absent for code. */
  judge?: unknown;
}

/** The execution key of a run and the library versions to record on it. */
export interface PreparedRun {
  key: ExecuteKey;
  libraryVersions: Record<string, number>;
}

function pinsOf(value: unknown): Record<string, number> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return {};
  return Object.fromEntries(Object.entries(value).filter(([, v]) => typeof v === "number")) as Record<string, number>;
}

/**
 * Builds execution keys for template versions: the source, its shared libraries resolved at their
 * pinned version else the latest now (through the shared-libraries service), and the evaluator's
 * isolation mode (warm unless it asks for strict). A
 * version's direct imports come from its stored `sharedImports`, else from parsing its source
 * (once per version: versions never change). Live runs, try_code and experiments share it, so a
 * template version runs in the same warm runners everywhere.
 */
export function createRunPreparer(deps: { sharedLibraries: Pick<SharedLibraryService, "resolveLibraries">; inspectSource?: SourceInspector }) {
  const inspector = deps.inspectSource ?? inspectSource;
  // Keyed by template version id (a version's source never changes); the least recently used go first.
  const importsCache = new LRUCache<string, Promise<string[]>>({ max: 10_000 });

  /** The shared libraries the version's source imports directly. */
  function directImports(version: RunnableVersion, workspaceId?: string): Promise<string[]> {
    if (version.sharedImports && version.sharedImports.length > 0) return Promise.resolve(version.sharedImports);
    if (!/\bshared\b/.test(version.sourceCode)) return Promise.resolve([]);
    let found = importsCache.get(version.id);
    if (!found) {
      found = inspector(version.sourceCode, workspaceId).then((r) => (r.ok ? r.sharedLibraries : []));
      found.catch(() => importsCache.delete(version.id));
      importsCache.set(version.id, found);
    }
    return found;
  }

  return {
    directImports,

    /**
     * The key and library versions of a run of `version` in `workspaceId`.
     * @param imports - the direct imports when already known (a draft's inspection).
     * @param mode - the evaluator's isolation: "warm" runners (default) or "strict" (a fork per item).
     * @param limits - the CPU time, wall time and memory the evaluator (or its template) asks for
     *   (`runLimits`); absent or empty: the executor's defaults.
     */
    async prepare(workspaceId: string, version: RunnableVersion, imports?: string[], mode: ExecuteKey["mode"] = "warm", limits?: EvaluatorLimits): Promise<PreparedRun> {
      const direct = imports ?? (await directImports(version, workspaceId));
      const pins = pinsOf(version.libraryPins);
      const resolved = direct.length ? await deps.sharedLibraries.resolveLibraries(workspaceId, direct, pins) : { libraries: {}, versions: {} };
      return {
        key: { workspaceId, templateVersionId: version.id, sourceCode: version.sourceCode, libraries: resolved.libraries, mode, ...(limits && Object.keys(limits).length ? { limits } : {}) },
        libraryVersions: resolved.versions,
      };
    },
  };
}

/** The run preparer. */
export type RunPreparer = ReturnType<typeof createRunPreparer>;
