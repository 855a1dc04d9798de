import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import { conditionText, deliveriesText, metricText, monitorText } from "../../cli/commands/monitors.js";
import type { Operations } from "../../api-client/operations.js";
import { readTimeValue } from "../../cli/time.js";
import { ALERT_DELIVERY_STATUSES, ALERT_DESTINATION_KINDS, MONITOR_STATES } from "../../lib/closed-lists.js";
import { monitorFields } from "../../modules/monitors/schemas.js";
import { badArguments, toolResult } from "../results.js";

const f = monitorFields;
const SETTINGS = ["name", "description", "scoreName", "metric", "percentile", "windowSeconds", "cadenceSeconds", "condition", "warningLevel", "alertLevel", "baseline", "minEffect", "maxPValue", "dropSeverity", "minSampleSize", "minCount", "renotifySeconds", "enabled"] as const;

/** The arguments of genai_monitors: the module's own field schemas, every one optional but `action`. */
// Strict: a misspelt argument is refused by name, as the CLI and GraphQL refuse it, never dropped.
export const monitorsInput = z.strictObject({
  action: z
    .enum(["list", "get", "history", "create", "update", "delete", "mute", "unmute", "resolve", "test_fire", "deliveries", "list_destinations", "create_destination", "delete_destination"])
    .describe("list / get / history (windows with value, n, baseline, p-value; state changes) / create / update / delete a monitor; mute, unmute, resolve (by hand), test_fire (send a test event now); deliveries (the log); list_destinations, create_destination (a webhook's signing secret is returned once), delete_destination."),
  monitor: z.string().describe("The monitor, by name or global id (get, history, update, delete, mute, unmute, resolve, test_fire; deliveries: only its).").optional(),
  evaluator: z.string().describe("create / update: the evaluator to watch, by name or global id; list: only its monitors.").optional(),
  destinations: z.array(z.string()).describe("create / update: where events go, destination names or global ids (update replaces the list).").optional(),
  ...Object.fromEntries(SETTINGS.map((k) => [k, (f[k] as z.ZodType).optional()])),
  state: z.enum(MONITOR_STATES).describe("list: only monitors in this state.").optional(),
  until: z.union([z.string(), z.number()]).describe("mute: until then (-7d style offsets, now, ISO 8601 or an epoch); default until unmuted.").optional(),
  reason: z.string().max(1000).describe("mute / resolve: why.").optional(),
  limit: z.number().int().min(1).max(100).describe("history: windows and transitions returned (default 20).").optional(),
  status: z.enum(ALERT_DELIVERY_STATUSES).describe("deliveries: only these.").optional(),
  destination: z.string().describe("delete_destination: the destination, by name or global id; create_destination: its name.").optional(),
  kind: z.enum(ALERT_DESTINATION_KINDS).describe("create_destination: webhook (signed JSON) or slack (incoming webhook).").optional(),
  url: z.string().describe("create_destination: where to POST.").optional(),
});

/** The tool's arguments. */
export type MonitorsArgs = z.infer<typeof monitorsInput>;

/** genai_monitors: monitors over the same GraphQL operations as the CLI (`oodle monitors`). */
export const monitorsTool = {
  name: "genai_monitors",
  description:
    "Alerts on an Oodle evaluator's live scores: a threshold over a window (warning / alert levels; the bad side comes from the score's higherIsBetter) or a drop against a baseline (previous_window, week_before, previous_version) tested with a two-proportion z-test or Welch's t. " +
    'Create: {"action": "create", "name": "Helpful rate", "evaluator": "Helpfulness", "metric": "pass_rate", "scoreName": "helpful", "windowSeconds": 3600, "cadenceSeconds": 300, "condition": "threshold", "alertLevel": 0.85}; ' +
    'then {"action": "history", "monitor": "Helpful rate"}, {"action": "test_fire", …}, {"action": "resolve", …}. States: OK, WARNING, ALERT, NO_DATA.',
  inputSchema: monitorsInput,
  async run(ops: Operations, args: MonitorsArgs): Promise<CallToolResult> {
    const m = ops.monitors;
    const raw = args as Record<string, unknown>;
    const needMonitor = async () => {
      if (!args.monitor) throw badArguments([{ path: "monitor", message: `is required: the monitor to ${args.action}, by name or id` }]);
      return m.monitorId(args.monitor, "monitor");
    };
    const settings = async (update: boolean) => {
      const input: Record<string, unknown> = Object.fromEntries(SETTINGS.filter((k) => raw[k] !== undefined).map((k) => [k, raw[k]]));
      if (args.evaluator) input.evaluatorId = (await ops.getEvaluator(args.evaluator)).id;
      else if (!update) throw badArguments([{ path: "evaluator", message: "is required: the evaluator to watch, by name or id" }]);
      if (args.destinations) input.destinationIds = await Promise.all(args.destinations.map((d) => m.destinationId(d, "destinations")));
      return input;
    };
    switch (args.action) {
      case "list": {
        const evaluatorId = args.evaluator ? (await ops.getEvaluator(args.evaluator)).id : undefined;
        const list = await m.listMonitors({ ...(args.state ? { state: args.state } : {}), ...(evaluatorId ? { evaluatorId } : {}) });
        return toolResult(list, list.map((x) => `${x.name} (${x.id}): ${x.state}, ${metricText(x)}, ${conditionText(x)}`).join("\n") || "no monitors");
      }
      case "get":
      case "history": {
        const got = await m.getMonitor(await needMonitor(), args.action === "history" ? (args.limit ?? 20) : 5);
        return toolResult(got, monitorText(got));
      }
      case "create": {
        const created = await m.createMonitor(await settings(false));
        return toolResult(created, `created monitor "${created.name}": ${metricText(created)}, ${conditionText(created)}`);
      }
      case "update": {
        const updated = await m.updateMonitor({ id: await needMonitor(), ...(await settings(true)) });
        return toolResult(updated, `updated monitor "${updated.name}": ${metricText(updated)}, ${conditionText(updated)}`);
      }
      case "delete": {
        const r = await m.deleteMonitor(await needMonitor());
        return toolResult(r, `deleted monitor "${r.name}"`);
      }
      case "mute": {
        const until = args.until !== undefined && args.until !== "" ? readTimeValue(args.until, "until").iso : undefined;
        const muted = await m.muteMonitor({ id: await needMonitor(), ...(until ? { until } : {}), ...(args.reason ? { reason: args.reason } : {}) });
        return toolResult(muted, `muted monitor "${muted.name}"${muted.mutedUntil ? ` until ${muted.mutedUntil}` : ""}`);
      }
      case "unmute": {
        const x = await m.unmuteMonitor(await needMonitor());
        return toolResult(x, `unmuted monitor "${x.name}" (${x.state})`);
      }
      case "resolve": {
        const x = await m.resolveMonitor({ id: await needMonitor(), ...(args.reason ? { reason: args.reason } : {}) });
        return toolResult(x, `monitor "${x.name}" is ${x.state}`);
      }
      case "test_fire": {
        const r = await m.testFireMonitor(await needMonitor());
        return toolResult(r, deliveriesText(r.deliveries));
      }
      case "deliveries": {
        const list = await m.listDeliveries({ ...(args.monitor ? { monitorId: await needMonitor() } : {}), ...(args.status ? { status: args.status } : {}) });
        return toolResult(list, deliveriesText(list));
      }
      case "list_destinations": {
        const list = await m.listDestinations();
        return toolResult(list, list.map((d) => `${d.name} (${d.kind}, ${d.urlHint})`).join("\n") || "no destinations");
      }
      case "create_destination": {
        const issues = [
          ...(args.destination ? [] : [{ path: "destination", message: "is required: the new destination's name" }]),
          ...(args.kind ? [] : [{ path: "kind", message: "is required: webhook or slack" }]),
          ...(args.url ? [] : [{ path: "url", message: "is required: where to POST" }]),
        ];
        if (issues.length) throw badArguments(issues);
        const r = await m.createDestination({ name: args.destination!, kind: args.kind!, url: args.url! });
        return toolResult(r, `created ${r.destination.kind} destination "${r.destination.name}"${r.signingSecret ? `; signing secret (shown once): ${r.signingSecret}` : ""}`);
      }
      case "delete_destination": {
        if (!args.destination) throw badArguments([{ path: "destination", message: "is required: the destination to delete, by name or id" }]);
        const r = await m.deleteDestination(await m.destinationId(args.destination, "destination"));
        return toolResult(r, `deleted destination "${r.name}"`);
      }
    }
  },
};
