import { chmodSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, join } from "node:path";
import { CliError } from "./exit-codes.js";

/** The default API URL when neither a flag, the environment nor a profile gives one. */
export const DEFAULT_API_URL = "http://127.0.0.1:4000";

/** One saved connection: the URL and key `oodle login` checked. */
export interface Profile {
  url: string;
  key: string;
  /** The workspace the key belongs to, as the API named it at login. */
  workspace?: string;
}

/** The profile file: `$OODLE_CONFIG_DIR/profiles.json`, else `~/.config/oodle/profiles.json`. */
export function profilesPath(env: NodeJS.ProcessEnv = process.env): string {
  const dir = env.OODLE_CONFIG_DIR || join(env.XDG_CONFIG_HOME || join(homedir(), ".config"), "oodle");
  return join(dir, "profiles.json");
}

/** Every saved profile by name (none when the file does not exist). */
export function readProfiles(env: NodeJS.ProcessEnv = process.env): Record<string, Profile> {
  try {
    return JSON.parse(readFileSync(profilesPath(env), "utf8")) as Record<string, Profile>;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return {};
    throw new CliError("BAD_USER_INPUT", `cannot read the profile file ${profilesPath(env)}: ${(error as Error).message}`, "profile");
  }
}

/** Saves a profile (the file is readable by its owner only: it holds a key). */
export function writeProfile(name: string, profile: Profile, env: NodeJS.ProcessEnv = process.env): string {
  const path = profilesPath(env);
  const profiles = readProfiles(env);
  profiles[name] = profile;
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  writeFileSync(path, `${JSON.stringify(profiles, null, 2)}\n`, { mode: 0o600 });
  chmodSync(path, 0o600);
  return path;
}

/**
 * The URL and key a command uses: flags, else OODLE_API_URL / OODLE_API_KEY, else the profile
 * (`--profile`, else OODLE_PROFILE, else "default"), else the default URL and no key.
 */
export function resolveConnection(flags: { url?: string; apiKey?: string; profile?: string }, env: NodeJS.ProcessEnv = process.env): { url: string; key?: string } {
  const profileName = flags.profile ?? env.OODLE_PROFILE ?? "default";
  const profile = readProfiles(env)[profileName];
  if (flags.profile && !profile) throw new CliError("NOT_FOUND", `no profile "${flags.profile}" in ${profilesPath(env)}: run oodle login --profile ${flags.profile}`, "profile");
  return {
    url: flags.url ?? env.OODLE_API_URL ?? profile?.url ?? DEFAULT_API_URL,
    key: flags.apiKey ?? env.OODLE_API_KEY ?? profile?.key,
  };
}
