import { pino, type Logger } from "pino";

/**
 * Creates the service logger (pino, JSON lines on stdout).
 * Secrets never go into log fields: callers log ids, not payloads; `redact` is a second guard.
 * @param level - pino level name ("fatal" … "trace", or "silent").
 */
export function createLogger(level: string): Logger {
  return pino({
    level,
    redact: {
      paths: ["req.headers.authorization", "authorization", "apiKey", "key", "*.apiKey", "databaseUrl", "redisUrl"],
      censor: "[redacted]",
    },
  });
}

export type { Logger };
