import type { ApiClient } from "./client.js";
import { CliError } from "./exit-codes.js";

/**
 * The GraphQL operations of monitors, alert destinations and deliveries, for the CLI
 * (`oodle monitors …`) and the MCP tool `genai_monitors`: one typed function each, over the same
 * API client as the other operations (reached as `ops.monitors`).
 */

/** A monitor as the CLI and MCP read it. */
export interface MonitorRecord {
  id: string;
  name: string;
  description: string;
  evaluator: { id: string; name: string };
  scoreName: string | null;
  metric: string;
  percentile: number | null;
  windowSeconds: number;
  cadenceSeconds: number;
  condition: string;
  warningLevel: number | null;
  alertLevel: number | null;
  baseline: string | null;
  minEffect: number | null;
  maxPValue: number;
  dropSeverity: string;
  minSampleSize: number;
  minCount: number;
  renotifySeconds: number | null;
  enabled: boolean;
  state: string;
  stateSince: string;
  muted: boolean;
  mutedUntil: string | null;
  muteReason: string | null;
  lastWindowEnd: string | null;
  destinations: { id: string; name: string; kind: string }[];
  createdAt: string;
  evaluations?: MonitorEvaluationRecord[];
  transitions?: { fromState: string; toState: string; cause: string; reason: string; windowEnd: string | null; at: string }[];
}

/** One evaluated window. */
export interface MonitorEvaluationRecord {
  windowStart: string;
  windowEnd: string;
  state: string;
  value: number | null;
  n: number;
  baselineValue: number | null;
  baselineN: number | null;
  effect: number | null;
  pValue: number | null;
  reason: string;
}

/** An alert destination (never its URL or secret). */
export interface DestinationRecord {
  id: string;
  name: string;
  kind: string;
  urlHint: string;
  signed: boolean;
  sealed: boolean;
  createdAt: string;
}

/** A delivery with its attempts. */
export interface DeliveryRecord {
  id: string;
  event: string;
  status: string;
  attempts: number;
  nextAttemptAt: string | null;
  createdAt: string;
  deliveredAt: string | null;
  monitor: { id: string; name: string };
  destination: { name: string; kind: string };
  log: { attempt: number; at: string; statusCode: number | null; body: string; error: string | null; durationMs: number }[];
}

const MONITOR = `id name description evaluator { id name } scoreName metric percentile windowSeconds cadenceSeconds condition warningLevel alertLevel
  baseline minEffect maxPValue dropSeverity minSampleSize minCount renotifySeconds enabled state stateSince muted mutedUntil muteReason lastWindowEnd
  destinations { id name kind } createdAt`;
const EVALUATION = "windowStart windowEnd state value n baselineValue baselineN effect pValue reason";
const DESTINATION = "id name kind urlHint signed sealed createdAt";
const DELIVERY = "id event status attempts nextAttemptAt createdAt deliveredAt monitor { id name } destination { name kind } log { attempt at statusCode body error durationMs }";

type Edges<T> = { edges: { node: T }[] };
const nodes = <T>(c: Edges<T>) => c.edges.map((e) => e.node);

/** True when `value` is a global ID of `type` (base64 of `Type:uuid`). */
function isGlobalId(type: string, value: string): boolean {
  const decoded = Buffer.from(value, "base64").toString("utf8");
  return decoded.startsWith(`${type}:`) && Buffer.from(decoded).toString("base64") === value;
}

/** The monitor operations over one API client. */
export function createMonitorOperations(api: ApiClient) {
  const monitorId = async (ref: string, field = "monitor"): Promise<string> => {
    if (isGlobalId("Monitor", ref)) return ref;
    const found = nodes((await api.request<{ monitors: Edges<{ id: string }> }>(`query($n: String) { monitors(first: 1, name: $n) { edges { node { id } } } }`, { n: ref })).monitors);
    if (!found.length) throw new CliError("NOT_FOUND", `no monitor is named "${ref}" (give its name or id: oodle monitors list)`, field);
    return found[0]!.id;
  };
  const listDestinations = async () => nodes((await api.request<{ alertDestinations: Edges<DestinationRecord> }>(`{ alertDestinations(first: 100) { edges { node { ${DESTINATION} } } } }`)).alertDestinations);
  const destinationId = async (ref: string, field = "destination"): Promise<string> => {
    if (isGlobalId("AlertDestination", ref)) return ref;
    const found = (await listDestinations()).find((d) => d.name === ref);
    if (!found) throw new CliError("NOT_FOUND", `no alert destination is named "${ref}" (oodle monitors destinations list)`, field);
    return found.id;
  };
  const mutation = async <T>(name: string, inputType: string, input: Record<string, unknown>, selection: string): Promise<T> =>
    ((await api.request<Record<string, T>>(`mutation($input: ${inputType}!) { ${name}(input: $input) { ${selection} } }`, { input })) as Record<string, T>)[name]!;

  return {
    monitorId,
    destinationId,
    listMonitors: async (filter: { state?: string; evaluatorId?: string } = {}) =>
      nodes((await api.request<{ monitors: Edges<MonitorRecord> }>(`query($s: MonitorState, $e: ID) { monitors(first: 100, state: $s, evaluatorId: $e) { edges { node { ${MONITOR} } } } }`, { s: filter.state, e: filter.evaluatorId })).monitors),
    /** One monitor, with its last `history` evaluations and transitions (0: none). */
    getMonitor: async (ref: string, history = 0): Promise<MonitorRecord> => {
      const id = await monitorId(ref);
      const more = history > 0 ? `evaluations(first: ${history}) { edges { node { ${EVALUATION} } } } transitions(first: ${history}) { edges { node { fromState toState cause reason windowEnd at } } }` : "";
      const { monitor } = await api.request<{ monitor: MonitorRecord & { evaluations?: Edges<MonitorEvaluationRecord>; transitions?: Edges<NonNullable<MonitorRecord["transitions"]>[number]> } }>(`query($id: ID!) { monitor(id: $id) { ${MONITOR} ${more} } }`, { id });
      return { ...monitor, ...(monitor.evaluations ? { evaluations: nodes(monitor.evaluations) } : {}), ...(monitor.transitions ? { transitions: nodes(monitor.transitions) } : {}) } as MonitorRecord;
    },
    createMonitor: async (input: Record<string, unknown>) => (await mutation<{ monitor: MonitorRecord }>("createMonitor", "CreateMonitorInput", input, `monitor { ${MONITOR} }`)).monitor,
    updateMonitor: async (input: Record<string, unknown>) => (await mutation<{ monitor: MonitorRecord }>("updateMonitor", "UpdateMonitorInput", input, `monitor { ${MONITOR} }`)).monitor,
    deleteMonitor: async (id: string) => mutation<{ deletedMonitorId: string; name: string }>("deleteMonitor", "DeleteMonitorInput", { id }, "deletedMonitorId name"),
    muteMonitor: async (input: { id: string; until?: string; reason?: string }) => (await mutation<{ monitor: MonitorRecord }>("muteMonitor", "MuteMonitorInput", input, `monitor { ${MONITOR} }`)).monitor,
    unmuteMonitor: async (id: string) => (await mutation<{ monitor: MonitorRecord }>("unmuteMonitor", "UnmuteMonitorInput", { id }, `monitor { ${MONITOR} }`)).monitor,
    resolveMonitor: async (input: { id: string; reason?: string }) => (await mutation<{ monitor: MonitorRecord }>("resolveMonitor", "ResolveMonitorInput", input, `monitor { ${MONITOR} }`)).monitor,
    testFireMonitor: async (id: string) => mutation<{ monitor: MonitorRecord; deliveries: DeliveryRecord[] }>("testFireMonitor", "TestFireMonitorInput", { id }, `monitor { ${MONITOR} } deliveries { ${DELIVERY} }`),
    listDestinations,
    createDestination: async (input: { name: string; kind: string; url: string }) => mutation<{ destination: DestinationRecord; signingSecret: string | null }>("createAlertDestination", "CreateAlertDestinationInput", input, `destination { ${DESTINATION} } signingSecret`),
    deleteDestination: async (id: string) => mutation<{ deletedAlertDestinationId: string; name: string }>("deleteAlertDestination", "DeleteAlertDestinationInput", { id }, "deletedAlertDestinationId name"),
    listDeliveries: async (filter: { monitorId?: string; status?: string } = {}) =>
      nodes((await api.request<{ alertDeliveries: Edges<DeliveryRecord> }>(`query($m: ID, $s: AlertDeliveryStatus) { alertDeliveries(first: 100, monitorId: $m, status: $s) { edges { node { ${DELIVERY} } } } }`, { m: filter.monitorId, s: filter.status })).alertDeliveries),
  };
}

/** The monitor operations. */
export type MonitorOperations = ReturnType<typeof createMonitorOperations>;
