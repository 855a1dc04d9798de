import * as Doc from "./generated/graphql.js";
import { ClientError, type ApiClient } from "./http.js";
import { idOrName } from "./id-or-name.js";
import { allNodes, PAGE_SIZE } from "./pages.js";

/**
 * The operations of connections to LLM providers, for the CLI (`oodle genai connections …`) and
 * the MCP tool `genai_connections`, over the generated documents (documents/connections.graphql),
 * reached as `ops.connections`. No operation reads a key: the API has none to give.
 */

/** A connection as the CLI and MCP read it (keyHint, never the key). */
export type ConnectionRecord = Doc.ConnectionFieldsFragment;
/** What testConnection answers. */
export type ConnectionTestRecord = Doc.TestConnectionMutation["testConnection"];

/** The connection operations over one API client. */
export function createConnectionOperations(api: ApiClient) {
  const listConnections = async (): Promise<ConnectionRecord[]> =>
    allNodes(async (after) => (await api.request(Doc.ListConnectionsDocument, { first: PAGE_SIZE, after })).connections);
  /** A connection's global id from its name or id. @throws ClientError NOT_FOUND (at `field`) when none has that name. */
  const connectionId = async (ref: string, field = "connection"): Promise<string> => {
    const { id } = idOrName("ProviderConnection", ref);
    if (id) return id;
    const found = (await listConnections()).find((c) => c.name === ref);
    if (!found) throw new ClientError("NOT_FOUND", `no connection is named "${ref}" (oodle genai connections list)`, field);
    return found.id;
  };
  return {
    connectionId,
    listConnections,
    createConnection: async (input: Record<string, unknown>) =>
      (await api.request(Doc.CreateConnectionDocument, { input: input as Doc.CreateConnectionInput })).createConnection.connection,
    updateConnection: async (input: Record<string, unknown>) =>
      (await api.request(Doc.UpdateConnectionDocument, { input: input as Doc.UpdateConnectionInput })).updateConnection.connection,
    deleteConnection: async (id: string) => (await api.request(Doc.DeleteConnectionDocument, { input: { id } })).deleteConnection,
    testConnection: async (id: string, model?: string): Promise<ConnectionTestRecord> =>
      (await api.request(Doc.TestConnectionDocument, { input: { id, ...(model ? { model } : {}) } })).testConnection,
  };
}
