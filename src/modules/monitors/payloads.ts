import type { AlertEvent, MonitorState } from "../../lib/closed-lists.js";
import type { FailingExample } from "./aggregates.js";

/**
 * The event a monitor sends (docs/monitors.md § Events): the JSON body of a webhook, and the
 * Slack message built from it. Ids are raw UUIDs; a span's global id is `base64("Span:<id>")`.
 */

/** The body of a webhook delivery. */
export interface AlertEventPayload {
  /** `monitor.firing`, `monitor.resolved`, `monitor.renotify` or `monitor.test`. */
  type: `monitor.${AlertEvent}`;
  monitor: {
    id: string;
    name: string;
    description: string;
    metric: string;
    scoreName: string | null;
    condition: string;
    windowSeconds: number;
    evaluator: { id: string; name: string };
  };
  state: MonitorState;
  previousState: MonitorState;
  window: { start: string; end: string } | null;
  value: number | null;
  n: number | null;
  baseline: { kind: string; value: number | null; n: number | null; detail: Record<string, unknown> } | null;
  /** current − baseline (drops). */
  effect: number | null;
  /** One-sided p-value of the drop test. */
  pValue: number | null;
  statistic: number | null;
  reason: string;
  /** Up to 20 spans (or runs) that made the window bad, with their ids. */
  examples: FailingExample[];
  /** When the event was made (the clock's time). */
  at: string;
}

const EMOJI: Record<MonitorState, string> = { OK: "✅", WARNING: "⚠️", ALERT: "🔴", NO_DATA: "❔" };

/** Text for Slack's mrkdwn: `&`, `<` and `>` escaped (Slack's "Escaping text" rules). */
function escapeSlack(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

/**
 * The Slack incoming-webhook message of an event: `text` (the notification's fallback) and
 * Block Kit `blocks` (a header, the reason, the figures, up to 20 examples by trace and span id).
 */
export function slackMessage(event: AlertEventPayload): { text: string; blocks: Record<string, unknown>[] } {
  const title = event.type === "monitor.test" ? `Test: ${event.monitor.name} is ${event.state}` : event.type === "monitor.resolved" ? `Resolved: ${event.monitor.name}` : `${event.state}: ${event.monitor.name}`;
  const figures: string[] = [`*Evaluator:* ${escapeSlack(event.monitor.evaluator.name)}`, `*Metric:* ${event.monitor.metric}${event.monitor.scoreName ? ` of ${escapeSlack(event.monitor.scoreName)}` : ""}`];
  if (event.value !== null) figures.push(`*Value:* ${event.value}${event.n !== null ? ` (n ${event.n})` : ""}`);
  if (event.baseline) figures.push(`*Baseline (${event.baseline.kind}):* ${event.baseline.value ?? "–"}${event.baseline.n !== null ? ` (n ${event.baseline.n})` : ""}`);
  if (event.pValue !== null) figures.push(`*p-value:* ${event.pValue.toExponential(2)}`);
  if (event.window) figures.push(`*Window:* ${event.window.start} – ${event.window.end}`);
  const blocks: Record<string, unknown>[] = [
    { type: "header", text: { type: "plain_text", text: `${EMOJI[event.state]} ${title}`.slice(0, 150), emoji: true } },
    { type: "section", text: { type: "mrkdwn", text: escapeSlack(event.reason).slice(0, 3000) } },
    { type: "section", fields: figures.slice(0, 10).map((text) => ({ type: "mrkdwn", text })) },
  ];
  if (event.examples.length) {
    const lines = event.examples.map((e) => `• trace \`${escapeSlack(e.traceId)}\` span \`${escapeSlack(e.otelSpanId)}\`${e.value !== null && e.value !== undefined ? ` = ${escapeSlack(JSON.stringify(e.value))}` : ""}${e.outcome ? ` (${e.outcome})` : ""}`);
    blocks.push({ type: "section", text: { type: "mrkdwn", text: `*Examples (${event.examples.length}):*\n${lines.join("\n")}`.slice(0, 3000) } });
  }
  if (event.monitor.description) blocks.push({ type: "context", elements: [{ type: "mrkdwn", text: escapeSlack(event.monitor.description).slice(0, 3000) }] });
  return { text: `${EMOJI[event.state]} ${title}: ${event.reason}`.slice(0, 3000), blocks };
}
