import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ApiError } from "../api-client/http.js";
import { CliError } from "./exit-codes.js";
import { readText } from "./inputs.js";
import type { Operations, Setting, TemplateRecord } from "../api-client/operations.js";
import { readTemplateYaml, TemplateYamlError, writeJudgeYaml, writeTemplateYaml } from "./template-yaml.js";
import { canonicalJson } from "../lib/canonical-json.js";

/**
 * A template as a folder, for authoring with an editor and git:
 *   evaluate.py         the code (a code template)
 *   judge.yaml          instead of the code, an llm template's judge: messages, output,
 *                       maxOutputTokens, cacheTtlSeconds (docs/judges.md)
 *   template.yaml       name, description, settings (the params list), libraryPins (template-yaml.ts)
 *   shared/<lib>.py     the shared libraries it imports (transitively), as pulled (code only)
 *   oodle.lock.json     what was pulled: template id, version and hash; each library's version and hash
 * A folder holds evaluate.py or judge.yaml, never both: which one says the template's kind.
 * A code folder runs locally with `python -m oodle_eval run evaluate.py` (shared/ is on sys.path).
 */
export const FILES = { code: "evaluate.py", judge: "judge.yaml", manifest: "template.yaml", lock: "oodle.lock.json", shared: "shared" } as const;

/** The template kinds a folder holds (TEMPLATE_KINDS): code (evaluate.py) or llm (judge.yaml). */
export type FolderKind = "code" | "llm";

/** template.yaml. */
export interface Manifest {
  name: string;
  description?: string;
  settings: Record<string, unknown>[];
  libraryPins: Record<string, number>;
}

/** oodle.lock.json: the server's state at the last pull or push. */
export interface Lock {
  template: { id: string; name: string; version: number; sha256: string };
  libraries: Record<string, { version: number; sha256: string }>;
}

/** judge.yaml: an llm template's judge as createTemplate takes it (the server checks every field). */
export interface JudgeFile {
  messages: { role: string; content: string }[];
  output: Record<string, unknown>[];
  maxOutputTokens?: number;
  cacheTtlSeconds?: number;
}

/** A folder read from disk. */
export interface TemplateFolder {
  dir: string;
  /** code: `sourceCode` (evaluate.py) is set; llm: `judge` (judge.yaml) is. */
  kind: FolderKind;
  /** The code (empty for an llm folder). */
  sourceCode: string;
  /** The judge of an llm folder, as read (null for a code folder). */
  judge: unknown;
  manifest: Manifest;
  libraries: Record<string, string>;
  lock: Lock | null;
}

/** sha256 hex of text. */
export const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");

/** The hash of a template version's content: code, settings and pins (canonical JSON). */
export function versionHash(sourceCode: string, settings: unknown, libraryPins: unknown): string {
  return sha256(JSON.stringify({ sourceCode, settings, libraryPins: Object.fromEntries(Object.entries((libraryPins ?? {}) as object).sort()) }));
}

/** The hash of an llm template version's content: its judge and settings (canonical JSON). */
export function judgeVersionHash(judge: unknown, settings: unknown): string {
  return sha256(canonicalJson({ judge, settings }));
}

/**
 * A stored judge (TemplateVersion.judge) as judge.yaml holds it: keys in reading order (messages,
 * output, then maxOutputTokens and cacheTtlSeconds), each score's keys as its definition reads
 * (name, type, description, min, max, values, higherIsBetter); keys the judge does not have are left out.
 */
export function judgeFileOf(judge: unknown): JudgeFile {
  const j = (judge ?? {}) as Record<string, unknown>;
  const ordered = (o: Record<string, unknown>, keys: readonly string[]) => {
    const out: Record<string, unknown> = {};
    for (const k of keys) if (o[k] !== undefined && o[k] !== null) out[k] = o[k];
    for (const k of Object.keys(o).sort()) if (!(k in out) && o[k] !== undefined && o[k] !== null) out[k] = o[k];
    return out;
  };
  const file: Record<string, unknown> = {
    messages: ((j.messages ?? []) as Record<string, unknown>[]).map((m) => ordered(m, ["role", "content"])),
    output: ((j.output ?? []) as Record<string, unknown>[]).map((o) => ordered(o, ["name", "type", "description", "min", "max", "values", "higherIsBetter"])),
  };
  if (typeof j.maxOutputTokens === "number") file.maxOutputTokens = j.maxOutputTokens;
  if (typeof j.cacheTtlSeconds === "number") file.cacheTtlSeconds = j.cacheTtlSeconds;
  return file as unknown as JudgeFile;
}

/** A setting as the API returns it → the params entry a save takes (no nulls, no hasDefault). */
export function settingToSpec(setting: Setting): Record<string, unknown> {
  const spec: Record<string, unknown> = { name: setting.name, type: setting.type };
  if (setting.label !== null) spec.label = setting.label;
  if (setting.description !== null) spec.description = setting.description;
  if (setting.hasDefault) spec.default = setting.default;
  if (setting.required) spec.required = true;
  if (setting.options !== null) spec.options = setting.options;
  return spec;
}

/**
 * Writes the template's latest version and its libraries into `dir` (created; existing files
 * replaced): a code template's evaluate.py, an llm template's judge.yaml.
 * @throws CliError BAD_USER_INPUT when `dir` holds the other kind's file (another template's folder).
 */
export async function pullTemplate(ops: Operations, ref: string, dir: string): Promise<{ template: TemplateRecord; files: string[]; lock: Lock }> {
  const template = await ops.getTemplate(ref);
  if (template.kind === "llm") return pullJudgeTemplate(template, dir);
  if (existsSync(join(dir, FILES.judge))) throw new CliError("BAD_USER_INPUT", `${dir} holds ${FILES.judge} (an llm template's folder): pull the code template "${template.name}" into another folder`, FILES.judge);
  const latest = template.latestVersion;
  // JSON fields of the API: libraryPins and resolvedLibraries are {library name: version}.
  const libraryPins = latest.libraryPins as Record<string, number>;
  const resolvedLibraries = latest.resolvedLibraries as Record<string, number>;
  const settings = latest.params.map(settingToSpec);
  const manifest: Manifest = { name: template.name, ...(template.description ? { description: template.description } : {}), settings, libraryPins };
  mkdirSync(dir, { recursive: true });
  const files: string[] = [FILES.code, FILES.manifest];
  writeFileSync(join(dir, FILES.code), latest.sourceCode);
  writeFileSync(join(dir, FILES.manifest), writeTemplateYaml(manifest));
  const libraries: Lock["libraries"] = {};
  for (const [name, version] of Object.entries(resolvedLibraries)) {
    const library = await ops.getLibrary(name, version);
    const source = library.version!.sourceCode;
    mkdirSync(join(dir, FILES.shared), { recursive: true });
    writeFileSync(join(dir, FILES.shared, `${name}.py`), source);
    files.push(join(FILES.shared, `${name}.py`));
    libraries[name] = { version, sha256: sha256(source) };
  }
  const lock: Lock = { template: { id: template.id, name: template.name, version: latest.version, sha256: versionHash(latest.sourceCode, settings, libraryPins) }, libraries };
  writeFileSync(join(dir, FILES.lock), `${JSON.stringify(lock, null, 2)}\n`);
  files.push(FILES.lock);
  return { template, files, lock };
}

/** An llm template's latest version into `dir`: judge.yaml, template.yaml (settings), the lock. */
function pullJudgeTemplate(template: TemplateRecord, dir: string): { template: TemplateRecord; files: string[]; lock: Lock } {
  if (existsSync(join(dir, FILES.code))) throw new CliError("BAD_USER_INPUT", `${dir} holds ${FILES.code} (a code template's folder): pull the llm template "${template.name}" into another folder`, FILES.code);
  const latest = template.latestVersion;
  const settings = latest.params.map(settingToSpec);
  const manifest = { name: template.name, ...(template.description ? { description: template.description } : {}), settings };
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, FILES.judge), writeJudgeYaml(judgeFileOf(latest.judge)));
  writeFileSync(join(dir, FILES.manifest), writeTemplateYaml(manifest));
  const lock: Lock = { template: { id: template.id, name: template.name, version: latest.version, sha256: judgeVersionHash(latest.judge, settings) }, libraries: {} };
  writeFileSync(join(dir, FILES.lock), `${JSON.stringify(lock, null, 2)}\n`);
  return { template, files: [FILES.judge, FILES.manifest, FILES.lock], lock };
}

/** Parses a YAML file of the folder; bad YAML is bad input naming the file and line. */
function readYamlFile(dir: string, file: string): unknown {
  try {
    return readTemplateYaml(readText(join(dir, file), file));
  } catch (error) {
    if (!(error instanceof TemplateYamlError)) throw error;
    throw new CliError("BAD_USER_INPUT", `${file} is not valid YAML: ${error.message}`, file);
  }
}

/**
 * Reads a template folder: evaluate.py (code) or judge.yaml (llm), template.yaml, shared/ (code)
 * and the lock; a missing or malformed file is bad input naming it, and so is a folder with both
 * evaluate.py and judge.yaml.
 */
export function readFolder(dir: string): TemplateFolder {
  const hasCode = existsSync(join(dir, FILES.code));
  const hasJudge = existsSync(join(dir, FILES.judge));
  if (hasCode && hasJudge) throw new CliError("BAD_USER_INPUT", `${dir} holds both ${FILES.code} and ${FILES.judge}: a template is code (${FILES.code}) or an llm judge (${FILES.judge}); remove one`, FILES.judge);
  if (!hasCode && !hasJudge) throw new CliError("BAD_USER_INPUT", `${dir} has no ${FILES.code} (or ${FILES.judge} for an llm judge): pull a template first (oodle genai templates pull NAME ${dir})`, FILES.code);
  const kind: FolderKind = hasJudge ? "llm" : "code";
  const sourceCode = kind === "llm" ? "" : readText(join(dir, FILES.code), FILES.code);
  let judge: unknown = null;
  if (kind === "llm") {
    judge = readYamlFile(dir, FILES.judge);
    if (typeof judge !== "object" || judge === null || Array.isArray(judge)) throw new CliError("BAD_USER_INPUT", `${FILES.judge} must hold a mapping: messages, output, maxOutputTokens, cacheTtlSeconds`, FILES.judge);
  }
  const raw = (readYamlFile(dir, FILES.manifest) ?? {}) as Partial<Manifest>;
  const manifest: Manifest = { name: raw.name ?? "", description: raw.description, settings: raw.settings ?? [], libraryPins: raw.libraryPins ?? {} };
  const libraries: Record<string, string> = {};
  const sharedDir = join(dir, FILES.shared);
  if (kind !== "llm" && existsSync(sharedDir)) {
    for (const file of readdirSync(sharedDir).sort()) {
      if (file.endsWith(".py") && file !== "__init__.py") libraries[file.slice(0, -3)] = readText(join(sharedDir, file), `${FILES.shared}/${file}`);
    }
  }
  const lock = existsSync(join(dir, FILES.lock)) ? (JSON.parse(readText(join(dir, FILES.lock), FILES.lock)) as Lock) : null;
  return { dir, kind, sourceCode, judge, manifest, libraries, lock };
}

/** The libraries of the folder that differ from the lock (or are new). */
export function changedLibraries(folder: TemplateFolder): string[] {
  return Object.entries(folder.libraries)
    .filter(([name, source]) => folder.lock?.libraries[name]?.sha256 !== sha256(source))
    .map(([name]) => name);
}

/**
 * The draft of a folder as createTemplate / validateTemplate take it: a code folder's code and
 * pins, an llm folder's `kind: llm` and judge (its pins only when template.yaml gives some, which
 * the API then refuses naming them).
 */
export function folderDraft(folder: TemplateFolder): { name: string; description?: string; params: unknown; libraryPins?: Record<string, number>; sourceCode?: string; kind?: "llm"; judge?: unknown } {
  const common = { name: folder.manifest.name, description: folder.manifest.description, params: folder.manifest.settings };
  if (folder.kind === "llm") return { ...common, kind: "llm", judge: folder.judge, ...(Object.keys(folder.manifest.libraryPins).length ? { libraryPins: folder.manifest.libraryPins } : {}) };
  return { ...common, sourceCode: folder.sourceCode, libraryPins: folder.manifest.libraryPins };
}

/** What a push did. */
export interface PushResult {
  template: TemplateRecord;
  created: boolean;
  /** False when nothing changed since the pull (no new version). */
  newVersion: boolean;
  published: { name: string; version: number }[];
}

/**
 * Validates and saves the folder as a new version: libraries that changed first (then pins of
 * those libraries move to the new versions), then the template. Refused with CONFLICT when the
 * server's version moved since the pull, unless `force`. Rewrites the lock (and template.yaml
 * when pins moved).
 */
export async function pushFolder(ops: Operations, dir: string, options: { force?: boolean } = {}): Promise<PushResult> {
  const folder = readFolder(dir);
  const ref = folder.lock?.template.id ?? folder.manifest.name;
  let current: TemplateRecord | null = null;
  try {
    current = await ops.getTemplate(ref);
  } catch (error) {
    if ((error as { code?: string }).code !== "NOT_FOUND") throw error;
    if (folder.lock) throw new CliError("NOT_FOUND", `template "${folder.lock.template.name}" of ${FILES.lock} no longer exists: delete the lock file to create it again`, FILES.lock);
  }
  if (current && current.kind !== folder.kind) {
    const file = folder.kind === "llm" ? FILES.judge : FILES.code;
    throw new CliError("BAD_USER_INPUT", `template "${current.name}" is ${current.kind === "llm" ? "an llm template" : "a code template"} on the server, and ${dir} holds ${file} (${folder.kind === "llm" ? "an llm judge" : "code"}): a template's kind never changes; give the folder another name in ${FILES.manifest}`, file);
  }
  if (current && !options.force) {
    if (!folder.lock) {
      throw new CliError("CONFLICT", `a template "${current.name}" already exists (version ${current.latestVersionNumber}): pull it first, or push --force to save this folder over it`, "name", [{ template: current.name, version: current.latestVersionNumber }]);
    }
    if (current.latestVersionNumber !== folder.lock.template.version) {
      throw new CliError(
        "CONFLICT",
        `template "${current.name}" moved on the server since the pull (pulled version ${folder.lock.template.version}, now ${current.latestVersionNumber}): pull again and merge, or push --force`,
        "version",
        [{ template: current.name, pulledVersion: folder.lock.template.version, serverVersion: current.latestVersionNumber }],
      );
    }
  }
  if (folder.kind === "llm") return pushJudgeFolder(ops, folder, current);
  // Check the template before publishing anything, so a bad folder changes nothing on the server.
  const libraryNames = new Set(Object.keys(folder.libraries));
  const check = await ops.validateTemplate({ ...folderDraft(folder), libraryPins: Object.fromEntries(Object.entries(folder.manifest.libraryPins).filter(([n]) => !libraryNames.has(n))) });
  const blocking = check.issues.filter((i) => !(i.path === "sourceCode" && [...libraryNames].some((n) => i.message.includes(`shared.${n},`))));
  if (blocking.length) throw new ApiError("BAD_USER_INPUT", "the folder has problems", blocking.map((i) => ({ ...i, path: pathInFolder(i.path, folder.manifest.settings) })));

  const published: PushResult["published"] = [];
  const pins = { ...folder.manifest.libraryPins };
  for (const name of changedLibraries(folder)) {
    const version = await ops.publishLibrary({ name, sourceCode: folder.libraries[name]!, note: `pushed from ${FILES.shared}/${name}.py` });
    published.push({ name, version: version.version });
    if (pins[name] !== undefined) pins[name] = version.version;
  }
  const draft = { ...folderDraft(folder), sourceCode: folder.sourceCode, libraryPins: pins };
  const hash = versionHash(draft.sourceCode, draft.params, pins);
  let template: TemplateRecord;
  let newVersion = true;
  if (!current) template = await ops.createTemplate(draft);
  else {
    template = await ops.updateTemplate(current.id, { sourceCode: draft.sourceCode, params: draft.params, libraryPins: pins, name: draft.name, description: draft.description });
    newVersion = template.latestVersionNumber !== current.latestVersionNumber;
  }
  if (JSON.stringify(pins) !== JSON.stringify(folder.manifest.libraryPins)) writeFileSync(join(dir, FILES.manifest), writeTemplateYaml({ ...folder.manifest, libraryPins: pins }));
  const libraries: Lock["libraries"] = {};
  for (const [name, source] of Object.entries(folder.libraries)) {
    const pushed = published.find((p) => p.name === name);
    libraries[name] = { version: pushed?.version ?? folder.lock?.libraries[name]?.version ?? 0, sha256: sha256(source) };
  }
  const lock: Lock = { template: { id: template.id, name: template.name, version: template.latestVersionNumber, sha256: hash }, libraries };
  writeFileSync(join(dir, FILES.lock), `${JSON.stringify(lock, null, 2)}\n`);
  return { template, created: !current, newVersion, published };
}

/** Saves an llm folder (checked first: a bad one changes nothing) and rewrites its lock. */
async function pushJudgeFolder(ops: Operations, folder: TemplateFolder, current: TemplateRecord | null): Promise<PushResult> {
  const draft = folderDraft(folder);
  const check = await ops.validateTemplate(draft);
  if (check.issues.length) throw new ApiError("BAD_USER_INPUT", "the folder has problems", check.issues.map((i) => ({ ...i, path: pathInFolder(i.path, folder.manifest.settings) })));
  let template: TemplateRecord;
  let newVersion = true;
  if (!current) template = await ops.createTemplate(draft);
  else {
    template = await ops.updateTemplate(current.id, { judge: draft.judge, params: draft.params, name: draft.name, description: draft.description });
    newVersion = template.latestVersionNumber !== current.latestVersionNumber;
  }
  const lock: Lock = { template: { id: template.id, name: template.name, version: template.latestVersionNumber, sha256: judgeVersionHash(template.latestVersion.judge, template.latestVersion.params.map(settingToSpec)) }, libraries: {} };
  writeFileSync(join(folder.dir, FILES.lock), `${JSON.stringify(lock, null, 2)}\n`);
  return { template, created: !current, newVersion, published: [] };
}

/**
 * An API field of a template save → where it lives in the folder, a setting named by its name as
 * in template.yaml (`params[1].default` → `template.yaml settings.mode.default`); a setting
 * without a usable name (missing, or not a plain identifier) keeps its position (`settings[1]`).
 * @param settings - the folder's settings list (template.yaml `settings`), whose names the positions refer to
 */
export function pathInFolder(path: string, settings: readonly unknown[] = []): string {
  if (path === "sourceCode") return FILES.code;
  // An llm template's judge: `judge.messages[0].content` → `judge.yaml messages[0].content`.
  if (path === "judge") return FILES.judge;
  if (path.startsWith("judge.")) return `${FILES.judge} ${path.slice("judge.".length)}`;
  if (path.startsWith("params")) {
    const rest = path.slice("params".length);
    const at = /^\[(\d+)\]/.exec(rest);
    const name = at ? (settings[Number(at[1])] as { name?: unknown } | undefined)?.name : undefined;
    if (at && typeof name === "string" && /^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) return `${FILES.manifest} settings.${name}${rest.slice(at[0].length)}`;
    return `${FILES.manifest} settings${rest}`;
  }
  if (path.startsWith("libraryPins")) return `${FILES.manifest} ${path}`;
  if (path === "name" || path === "description") return `${FILES.manifest} ${path}`;
  return path;
}
