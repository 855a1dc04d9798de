import { pino, type DestinationStream, type Logger } from "pino";

/**
 * Creates the service logger (pino, JSON lines on stdout).
 * Secrets never go into log fields: callers log ids, not payloads; `redact` is a second guard.
 * @param level - pino level name ("fatal" … "trace", or "silent").
 * @param destination - where lines go (stdout by default; tests capture them).
 */
export function createLogger(level: string, destination?: DestinationStream): Logger {
  return pino(
    {
      level,
      redact: {
        paths: [
          "req.headers.authorization",
          "authorization",
          "apiKey",
          "key",
          "*.apiKey",
          "*.*.apiKey",
          "variables.input.apiKey",
          "databaseUrl",
          "redisUrl",
          // Connections (src/modules/connections): the provider key and its sealed form.
          "keyCiphertext",
          "*.keyCiphertext",
          "CONNECTION_KEYS",
          "*.CONNECTION_KEYS",
        ],
        censor: "[redacted]",
      },
    },
    ...(destination ? [destination] : []),
  );
}

export type { Logger };
