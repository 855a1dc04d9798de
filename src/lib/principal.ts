/**
 * Who is calling a service. Every service function takes one and sees only its workspace.
 * - an API key's caller (every request of the API, the CLI and MCP): `apiKeyId` names the key,
 *   which is recorded as the author of what it writes;
 * - the local administrator: a server-side command run on the machine (`npm run dataset:import`),
 *   with no API key; what it writes has no author key.
 */
export type Principal = ApiKeyPrincipal | LocalAdminPrincipal;

/** A caller authenticated by an API key of the workspace. */
export interface ApiKeyPrincipal {
  workspaceId: string;
  apiKeyId: string;
}

/** A command run on the server itself, acting in one workspace without an API key. */
export interface LocalAdminPrincipal {
  workspaceId: string;
  localAdmin: true;
  apiKeyId?: undefined;
}

/** The local administrator of a workspace (for server-side commands and scripts). */
export function localAdministrator(workspaceId: string): LocalAdminPrincipal {
  return { workspaceId, localAdmin: true };
}

/** The API key to record as the author of a write (`null` for the local administrator). */
export function authorKeyOf(principal: Principal): string | null {
  return principal.apiKeyId ?? null;
}
