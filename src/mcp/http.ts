import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import type { Plugin } from "graphql-yoga";
import { createApiClient } from "../api-client/http.js";
import { createOperations } from "../api-client/operations.js";
import type { App } from "../app.js";
import { createMcpServer } from "./server.js";

/** The path of the streamable HTTP transport on the API server. */
export const MCP_PATH = "/mcp";

/**
 * Serves MCP over streamable HTTP at /mcp (stateless: one server and transport per request,
 * JSON responses). The caller's `Authorization: Bearer <key>` is checked first (401 otherwise)
 * and then sent with every GraphQL operation the tools run in-process through `yoga.fetch`, so
 * the tools see exactly the key's workspace and every rule of the API.
 */
export function mcpPlugin(app: App, yoga: () => { fetch: (request: Request) => Response | Promise<Response> }): Plugin {
  return {
    async onRequest({ request, url, endResponse, fetchAPI }) {
      if (url.pathname !== MCP_PATH) return;
      const authorization = request.headers.get("authorization") ?? "";
      const secret = /^Bearer\s+(\S+)\s*$/i.exec(authorization)?.[1];
      const principal = secret ? await app.services.workspaces.authenticate(secret) : null;
      if (!principal) {
        endResponse(
          new fetchAPI.Response(JSON.stringify({ jsonrpc: "2.0", error: { code: -32001, message: "a valid API key is required: send Authorization: Bearer <key>" }, id: null }), {
            status: 401,
            headers: { "content-type": "application/json", "www-authenticate": 'Bearer realm="oodle"' },
          }),
        );
        return;
      }
      const requestId = request.headers.get("x-request-id");
      const api = createApiClient({
        url: url.origin,
        authorization,
        fetch: async (inner) => {
          if (requestId) inner.headers.set("x-request-id", requestId);
          return yoga().fetch(inner);
        },
      });
      const server = createMcpServer(createOperations(api));
      const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
      await server.connect(transport);
      try {
        endResponse(await transport.handleRequest(request));
      } finally {
        void server.close();
      }
    },
  };
}
