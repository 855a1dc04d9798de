import { readFileSync } from "node:fs";
import { parse as parseYaml } from "yaml";
import { invalidUtf8Offset } from "../lib/utf8.js";
import { CliError } from "./exit-codes.js";

/**
 * Reads a UTF-8 text file; a missing or unreadable one, or one that is not valid UTF-8 (named by
 * line and byte: never decoded to U+FFFD and sent as such), is bad input naming the flag.
 */
export function readText(path: string, field: string): string {
  let bytes: Buffer;
  try {
    bytes = readFileSync(path === "-" ? 0 : path);
  } catch (error) {
    throw new CliError("BAD_USER_INPUT", `cannot read ${path}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`, field);
  }
  const bad = invalidUtf8Offset(bytes);
  if (bad >= 0) {
    const line = bytes.subarray(0, bad).filter((b) => b === 0x0a).length + 1;
    throw new CliError("BAD_USER_INPUT", `${path} is not valid UTF-8 at line ${line} (byte 0x${bytes[bad]!.toString(16).padStart(2, "0")} at byte ${bad + 1}): save it as UTF-8`, field);
  }
  return bytes.toString("utf8");
}

/** Parses a JSON flag value (`--params '{"at": 0.7}'`); bad JSON names the flag. */
export function parseJsonFlag(text: string, field: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new CliError("BAD_USER_INPUT", `must be JSON (${(error as Error).message})`, field);
  }
}

/** A JSON flag value, or `@FILE` / a path of an existing .json/.yaml file read as such. */
export function jsonOrFile(text: string, field: string): unknown {
  if (text.startsWith("@")) return parseDataFile(text.slice(1), field);
  return parseJsonFlag(text, field);
}

/** Reads a JSON or YAML file (by extension; YAML is a superset of JSON, so anything else parses as YAML). */
export function parseDataFile(path: string, field: string): unknown {
  const text = readText(path, field);
  try {
    return path.endsWith(".json") ? JSON.parse(text) : parseYaml(text);
  } catch (error) {
    throw new CliError("BAD_USER_INPUT", `${path} is not valid ${path.endsWith(".json") ? "JSON" : "YAML"}: ${(error as Error).message}`, field);
  }
}

/** Parses a number flag; anything else is bad input naming the flag. */
export function numberFlag(text: string, field: string): number {
  const value = Number(text);
  if (text.trim() === "" || !Number.isFinite(value)) throw new CliError("BAD_USER_INPUT", `must be a number (got "${text}")`, field);
  return value;
}

/** `key=value` pairs (`--attribute app.channel=support`) as an object; numbers and booleans parsed. */
export function keyValues(pairs: string[], field: string): Record<string, string | number | boolean> {
  const result: Record<string, string | number | boolean> = {};
  for (const pair of pairs) {
    const at = pair.indexOf("=");
    if (at <= 0) throw new CliError("BAD_USER_INPUT", `must be key=value (got "${pair}")`, field);
    const raw = pair.slice(at + 1);
    result[pair.slice(0, at)] = raw === "true" ? true : raw === "false" ? false : raw.trim() !== "" && Number.isFinite(Number(raw)) ? Number(raw) : raw;
  }
  return result;
}

/** Reads JSON Lines: one value per non-blank line; a bad line is bad input naming `line N`. */
export function readJsonLines(path: string, field: string): unknown[] {
  const lines = readText(path, field).split("\n");
  const values: unknown[] = [];
  lines.forEach((line, i) => {
    if (line.trim() === "") return;
    try {
      values.push(JSON.parse(line));
    } catch (error) {
      throw new CliError("BAD_USER_INPUT", `${path} line ${i + 1} is not JSON: ${(error as Error).message}`, `line ${i + 1}`);
    }
  });
  return values;
}
