import { request as httpRequest } from "node:http";
import { request as httpsRequest } from "node:https";
import { isIP } from "node:net";
import { guardedLookup, isPrivateAddress } from "../../lib/private-addresses.js";


/**
 * One POST to an alert destination, with the guard against server-side request forgery: unless
 * private networks are allowed (`ALERT_ALLOW_PRIVATE_DESTINATIONS`, for tests and on-premises
 * receivers), a host that is or resolves to a loopback, private, link-local (cloud metadata at
 * 169.254.169.254), CGNAT, multicast or unspecified address is refused — checked on the address
 * the connection actually uses (no DNS-rebinding gap), and redirects are not followed.
 */

/** The answer of a POST: the status and the body's first bytes, or the error that prevented one. */
export interface PostAnswer {
  statusCode: number | null;
  /** The response body, cut to 1 KiB. */
  body: string;
  error: string | null;
  /** True when the address was refused before connecting (private or loopback): retrying cannot help. */
  refused?: boolean;
  durationMs: number;
}

/** The body kept of an answer, in bytes. */
const ANSWER_BYTES = 1024;

/** A lookup that refuses private addresses. */
const alertLookup = guardedLookup("ALERT_ALLOW_PRIVATE_DESTINATIONS");

/**
 * POSTs `body` to `url` with `headers`, within `timeoutMs`. Never throws: a refused address, a
 * network error or a timeout is the answer's `error`.
 */
export function postJson(url: string, body: string, headers: Record<string, string>, options: { timeoutMs: number; allowPrivate: boolean }): Promise<PostAnswer> {
  const started = performance.now();
  const done = (answer: Omit<PostAnswer, "durationMs">): PostAnswer => ({ ...answer, durationMs: Math.round(performance.now() - started) });
  return new Promise((resolve) => {
    let target: URL;
    try {
      target = new URL(url);
    } catch {
      return resolve(done({ statusCode: null, body: "", error: "not a URL" }));
    }
    const host = target.hostname.replace(/^\[|\]$/g, "");
    if (!options.allowPrivate && isIP(host) && isPrivateAddress(host)) {
      return resolve(done({ statusCode: null, body: "", error: `${host} is a private or loopback address (set ALERT_ALLOW_PRIVATE_DESTINATIONS=true to allow)`, refused: true }));
    }
    const send = target.protocol === "https:" ? httpsRequest : httpRequest;
    const req = send(
      target,
      {
        method: "POST",
        headers: { "content-type": "application/json", "content-length": Buffer.byteLength(body), "user-agent": "oodle-alerts/1", ...headers },
        timeout: options.timeoutMs,
        ...(options.allowPrivate ? {} : { lookup: alertLookup }),
      },
      (res) => {
        const chunks: Buffer[] = [];
        let kept = 0;
        res.on("data", (chunk: Buffer) => {
          if (kept < ANSWER_BYTES) chunks.push(chunk.subarray(0, ANSWER_BYTES - kept));
          kept += chunk.length;
        });
        res.on("end", () => resolve(done({ statusCode: res.statusCode ?? null, body: Buffer.concat(chunks).toString("utf8"), error: null })));
        res.on("error", (error) => resolve(done({ statusCode: res.statusCode ?? null, body: "", error: error.message })));
      },
    );
    req.on("timeout", () => req.destroy(new Error(`no answer within ${options.timeoutMs} ms`)));
    req.on("error", (error) => resolve(done({ statusCode: null, body: "", error: error.message, ...((error as NodeJS.ErrnoException).code === "EPRIVATE" ? { refused: true } : {}) })));
    req.end(body);
  });
}
