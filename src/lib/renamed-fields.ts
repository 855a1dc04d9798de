/**
 * Names of the settings page that the API spells differently, with what to use instead: one list
 * for every transport (GraphQL's unknown-field errors and the MCP tools' unknown arguments).
 */
export const RENAMED_FIELDS: Record<string, string> = {
  type: 'there is no "type" field: every template is code (send sourceCode and params)',
  evaluatorId: 'an evaluator names its template with "templateId" (a global ID) or "templateName"',
};
