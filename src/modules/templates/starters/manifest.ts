import type { ParamSpec } from "../settings.js";

/** An llm starter's judge, as createTemplate takes it (judges/definition.ts). */
export interface StarterJudge {
  messages: { role: "system" | "user" | "assistant"; content: string }[];
  output: Record<string, unknown>[];
}

/** A built-in template: its code is `<id>.py` beside this file, or (an llm starter) its `judge`. */
export interface StarterManifestEntry {
  /** Stable id, also the file name (`keyword-check`). */
  id: string;
  /** The default template name. */
  name: string;
  description: string;
  /**
   * The settings; each name is a keyword argument of the `oodle_eval.v1` check(s) the code calls,
   * with the check's default (docs/checks.md), so `metrics.X(ctx, **ctx.params)` works.
   */
  params: ParamSpec[];
  /** An llm starter's judge (its template is kind llm, docs/judges.md); absent for a code starter. */
  judge?: StarterJudge;
}

/** The built-in templates, in the order they are listed. */
export const STARTERS: readonly StarterManifestEntry[] = [
  {
    id: "keyword-check",
    name: "Keyword check",
    description: "The reply mentions the required keywords (all or any) and none of the forbidden ones.",
    params: [
      { name: "required", type: "string_list", label: "Required keywords", description: "The reply must mention these (all or any, by mode).", default: [], required: false },
      { name: "forbidden", type: "string_list", label: "Forbidden keywords", description: "The reply must mention none of these.", default: [], required: false },
      { name: "mode", type: "enum", options: ["all", "any"], label: "Mode", description: "all: every required keyword; any: at least one.", default: "all", required: false },
      { name: "case_sensitive", type: "boolean", label: "Case sensitive", default: false, required: false },
    ],
  },
  {
    id: "json-shape",
    name: "JSON shape",
    description: "The reply is valid JSON and, when keys are given, a top-level object holding each of them.",
    params: [
      { name: "required_keys", type: "string_list", label: "Required keys", description: "Top-level keys the JSON object must hold (none: only check that it is JSON).", required: false },
    ],
  },
  {
    id: "pii-leak",
    name: "PII leak",
    description: "The reply holds no e-mail address, credit card, US SSN, IP address, IBAN or phone number.",
    params: [
      {
        name: "entities",
        type: "string_list",
        label: "Entity types",
        description: "Limit the check to some of EMAIL_ADDRESS, CREDIT_CARD, US_SSN, IP_ADDRESS, IBAN_CODE, PHONE_NUMBER (none: all).",
        required: false,
      },
    ],
  },
  {
    id: "refusal",
    name: "Refusal",
    description: "The reply refuses or declines to answer (refused, lower is better).",
    params: [],
  },
  {
    id: "readability",
    name: "Readability",
    description: "Flesch reading ease and Flesch–Kincaid grade level of the reply, ok at or below a grade.",
    params: [{ name: "max_grade", type: "number", label: "Highest grade level", default: 8, required: false }],
  },
  {
    id: "tone",
    name: "Tone",
    description: "The reply's sentiment, shouting and exclamation marks stay within the thresholds.",
    params: [
      { name: "min_sentiment", type: "number", label: "Lowest sentiment", description: "-1 (negative) to 1 (positive).", default: -0.2, required: false },
      { name: "max_upper_ratio", type: "number", label: "Highest share of upper-case letters", default: 0.3, required: false },
      { name: "max_exclamations", type: "integer", label: "Most exclamation marks", default: 3, required: false },
    ],
  },
  {
    id: "length-budget",
    name: "Length budget",
    description: "The reply stays within a number of words.",
    params: [{ name: "max_words", type: "integer", label: "Most words", default: 250, required: true }],
  },
  {
    id: "tool-trajectory",
    name: "Tool trajectory",
    description: "The agent called the tools that you expect.",
    params: [
      {
        name: "expected",
        type: "json",
        label: "Expected tool calls",
        description: 'A list of tool names or {"name", "arguments"} objects.',
        required: true,
      },
      {
        name: "mode",
        type: "enum",
        options: ["strict", "unordered", "subset", "superset"],
        label: "Mode",
        description: "strict: same calls in the same order; unordered: any order; subset: no extra tool; superset: every expected call happened.",
        default: "strict",
        required: false,
      },
    ],
  },
  {
    id: "exact-match",
    name: "Exact match",
    description: "The reply equals the reference (the expected output in an experiment).",
    params: [
      { name: "reference", type: "text", label: "Reference", description: "None: the dataset item's expected output.", required: false },
      { name: "normalize", type: "boolean", label: "Normalise", description: "SQuAD's answer normalisation: case, punctuation, articles, spaces.", default: false, required: false },
    ],
  },
  {
    id: "levenshtein",
    name: "Levenshtein ratio",
    description: "How similar the reply is to the reference, 0 to 1 (the expected output in an experiment).",
    params: [
      { name: "reference", type: "text", label: "Reference", description: "None: the dataset item's expected output.", required: false },
      { name: "case_sensitive", type: "boolean", label: "Case sensitive", default: false, required: false },
    ],
  },
  {
    id: "rag-grounded",
    name: "RAG answer is grounded",
    description: "The answer uses the retrieved context's words, its numbers occur in the context, and it cites sources; rag_ok when all pass.",
    params: [
      { name: "threshold", type: "number", label: "Grounding threshold", description: "Share of the answer's words found in the context, 0 to 1.", default: 0.5, required: false },
      { name: "context_key", type: "string", label: "Context attribute", description: "The span attribute that holds the retrieved context.", default: "context", required: false },
      { name: "require_every_sentence", type: "boolean", label: "Citation in every sentence", default: false, required: false },
    ],
  },
  {
    id: "all-checks-pass",
    name: "All checks pass",
    description: "No PII, no refusal and no forbidden phrase; safe_reply when every check passes.",
    params: [
      { name: "forbidden", type: "string_list", label: "Forbidden phrases", default: ["guarantee", "promise"], required: false },
    ],
  },
  {
    id: "judge-gate",
    name: "Judge gate",
    description: "The cheap half of a cascade: needs_judge is true when neither a refusal nor a settling phrase decides the reply; gate an LLM judge on it (docs/judges.md § Cascades).",
    params: [
      { name: "required", type: "string_list", label: "Phrases that settle a reply without the judge", default: ["thank you", "you're welcome"], required: false },
    ],
  },
  {
    id: "politeness-judge",
    name: "Politeness judge",
    description: "An LLM judge (kind llm): is the reply polite to the user, with a 1-5 courtesy score. Gate it on the judge-gate starter's needs_judge for a cascade.",
    params: [
      { name: "model", type: "string", label: "Model", description: "The model to ask (empty: the connection's default).", default: "", required: false },
      { name: "rubric", type: "text", label: "Rubric", default: "Polite means courteous, respectful and free of blame or sarcasm.", required: false },
    ],
    judge: {
      messages: [
        { role: "system", content: "You grade customer-support replies for politeness. Rubric: {{params.rubric}}" },
        { role: "user", content: "The user wrote:\n{{input}}\n\nThe reply was:\n{{output}}\n\nIs the reply polite?" },
      ],
      output: [
        { name: "polite", type: "boolean", higherIsBetter: true, description: "The reply meets the rubric." },
        { name: "courtesy", type: "numeric", min: 1, max: 5, higherIsBetter: true, description: "1 rude, 5 exemplary." },
      ],
    },
  },
  {
    id: "faithfulness-judge",
    name: "Faithfulness judge",
    description: "An LLM judge (kind llm): does the reply stay within the retrieved context (faithful), and is it relevant to the question.",
    params: [{ name: "model", type: "string", label: "Model", description: "The model to ask (empty: the connection's default).", default: "", required: false }],
    judge: {
      messages: [
        { role: "system", content: "You check answers of a retrieval-augmented assistant against their context." },
        { role: "user", content: "Question:\n{{input}}\n\nContext:\n{{context}}\n\nAnswer:\n{{output}}\n\nIs every claim of the answer supported by the context, and does it answer the question?" },
      ],
      output: [
        { name: "faithful", type: "boolean", higherIsBetter: true, description: "Every claim is supported by the context." },
        { name: "relevance", type: "categorical", values: ["relevant", "partial", "off_topic"], description: "How well it answers the question." },
      ],
    },
  },
];
