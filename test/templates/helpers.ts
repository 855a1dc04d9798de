import { createTestApp, createTestWorkspace, graphqlClient } from "../helpers.js";

/** A minimal valid evaluator source. */
export const SOURCE = `from oodle_eval.v1 import metrics


def evaluate(ctx):
    return EvaluationResult(scores=metrics.keyword_check(ctx, **ctx.params))
`;

/** The settings of the "Keyword check" example (docs/settings.md). */
export const KEYWORD_PARAMS = [
  { name: "required", type: "string_list", label: "Required keywords", description: "The reply must mention each of these.", default: [] },
  { name: "mode", type: "enum", options: ["all", "any"], default: "all" },
  { name: "case_sensitive", type: "boolean", default: false },
];

export const TEMPLATE_FIELDS = `id name description latestVersionNumber deletedAt
  latestVersion { id version sourceCode libraryPins entryPoint { kind name } author { name }
    params { name type label description default hasDefault required options } }`;

export const EVALUATOR_FIELDS = `id name params resolvedParams enabled spanKind spanNamePattern attributeEquals samplingRate
  pinnedVersion followsLatest archived archivedAt template { id name } templateVersion { version }`;

/** The GraphQL error of a response, for assertions. */
export interface GqlError {
  message: string;
  extensions?: Record<string, any>;
}

/** An app, a GraphQL client and helpers bound to a fresh workspace. */
export function templatesHarness() {
  const app = createTestApp();
  const client = graphqlClient(app);

  /** A fresh workspace with a `gql(query, variables)` bound to its key. */
  async function workspace(label = "templates") {
    const ws = await createTestWorkspace(app, label);
    const gql = (query: string, variables: Record<string, unknown> = {}) => client.request(query, variables, ws.secret);

    async function createTemplate(input: Record<string, unknown>) {
      const res = await gql(`mutation($input: CreateTemplateInput!) { createTemplate(input: $input) { template { ${TEMPLATE_FIELDS} } } }`, { input });
      return { res, template: res.data?.createTemplate?.template, error: res.errors?.[0] as GqlError | undefined };
    }
    async function updateTemplate(input: Record<string, unknown>) {
      const res = await gql(`mutation($input: UpdateTemplateInput!) { updateTemplate(input: $input) { template { ${TEMPLATE_FIELDS} } } }`, { input });
      return { res, template: res.data?.updateTemplate?.template, error: res.errors?.[0] as GqlError | undefined };
    }
    async function createEvaluator(input: Record<string, unknown>) {
      const res = await gql(`mutation($input: CreateEvaluatorInput!) { createEvaluator(input: $input) { evaluator { ${EVALUATOR_FIELDS} } } }`, { input });
      return { res, evaluator: res.data?.createEvaluator?.evaluator, error: res.errors?.[0] as GqlError | undefined };
    }
    async function updateEvaluator(input: Record<string, unknown>) {
      const res = await gql(`mutation($input: UpdateEvaluatorInput!) { updateEvaluator(input: $input) { evaluator { ${EVALUATOR_FIELDS} } } }`, { input });
      return { res, evaluator: res.data?.updateEvaluator?.evaluator, error: res.errors?.[0] as GqlError | undefined };
    }
    /** A template with the page's keyword settings (or the given ones). */
    async function keywordTemplate(name = "Keyword check", params: unknown = KEYWORD_PARAMS) {
      const { template, error } = await createTemplate({ name, sourceCode: SOURCE, params });
      if (error) throw new Error(`createTemplate failed: ${error.message}`);
      return template as { id: string; name: string };
    }
    return { ...ws, gql, createTemplate, updateTemplate, createEvaluator, updateEvaluator, keywordTemplate };
  }

  return { app, client, workspace };
}

/** Settings issues of a failed createTemplate with the given params. */
export function issuesOf(error: GqlError | undefined): { path: string; message: string }[] {
  return (error?.extensions?.issues ?? []) as { path: string; message: string }[];
}
