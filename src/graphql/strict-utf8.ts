import { GraphQLError } from "graphql";
import type { Plugin } from "graphql-yoga";
import { utf8Problem } from "../lib/utf8.js";

/** `application/json` (or `application/graphql+json`), as yoga's own JSON parser matches it. */
function isJsonPost(request: Request): boolean {
  const type = request.headers.get("content-type")?.split(",")[0]?.split(";")[0]?.trim().toLowerCase();
  return request.method === "POST" && (type === "application/json" || type === "application/graphql+json");
}

/** A refused body: BAD_USER_INPUT at `body`, HTTP 400 (as yoga answers a body that is not JSON). */
function badBody(message: string): GraphQLError {
  return new GraphQLError(`body: ${message}`, { extensions: { code: "BAD_USER_INPUT", issues: [{ path: "body", message }], http: { status: 400 } } });
}

/**
 * GraphQL requests sent as JSON must be valid UTF-8 (RFC 8259 § 8.1): a body with bad bytes is
 * refused with the byte and its offset, instead of being decoded with U+FFFD in their place and
 * stored as text the client never sent. The other parsers of yoga (GET, multipart) are kept;
 * uploaded files are checked line by line by the dataset import.
 */
export function strictUtf8Plugin(): Plugin {
  return {
    onRequestParse({ request, setRequestParser }) {
      if (!isJsonPost(request)) return;
      setRequestParser(async (req) => {
        const bytes = new Uint8Array(await req.arrayBuffer());
        const problem = utf8Problem(bytes);
        if (problem) throw badBody(problem.replace(": save the file as UTF-8", ""));
        let body: unknown;
        try {
          body = JSON.parse(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("utf8"));
        } catch (error) {
          throw badBody(`is not JSON (${error instanceof Error ? error.message : String(error)})`);
        }
        if (typeof body !== "object" || body === null) throw badBody(`must be a JSON object or a list of them (got ${body === null ? "null" : typeof body})`);
        return body as never;
      });
    },
  };
}
