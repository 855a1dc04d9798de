import * as Doc from "./generated/graphql.js";
import { ClientError, type ApiClient } from "./http.js";
import { idOrName } from "./id-or-name.js";
import { allNodes, PAGE_SIZE } from "./pages.js";

/**
 * The operations of monitors, alert destinations and deliveries, for the CLI (`oodle monitors …`)
 * and the MCP tool `genai_monitors`, over the generated documents (documents/monitors.graphql),
 * reached as `ops.monitors`. Lists read every page.
 */

/** A monitor as the CLI and MCP read it (with `evaluations` and `transitions` from `getMonitor(ref, n)`). */
export type MonitorRecord = Doc.MonitorFieldsFragment & {
  evaluations?: MonitorEvaluationRecord[];
  transitions?: Doc.MonitorTransitionFieldsFragment[];
};
/** One evaluated window. */
export type MonitorEvaluationRecord = Doc.MonitorEvaluationFieldsFragment;
/** An alert destination (never its URL or secret). */
export type DestinationRecord = Doc.AlertDestinationFieldsFragment;
/** A delivery with its attempts. */
export type DeliveryRecord = Doc.AlertDeliveryFieldsFragment;

/** The monitor operations over one API client. */
export function createMonitorOperations(api: ApiClient) {
  /** A monitor's global id from its name or id. @throws ClientError NOT_FOUND (at `field`) when none has that name. */
  const monitorId = async (ref: string, field = "monitor"): Promise<string> => {
    const { id, name } = idOrName("Monitor", ref);
    if (id) return id;
    const found = (await api.request(Doc.MonitorIdByNameDocument, { name })).monitors.edges;
    if (!found.length) throw new ClientError("NOT_FOUND", `no monitor is named "${ref}" (give its name or id: oodle monitors list)`, field);
    return found[0]!.node.id;
  };
  const listDestinations = async () =>
    allNodes(async (after) => (await api.request(Doc.ListAlertDestinationsDocument, { first: PAGE_SIZE, after })).alertDestinations);
  /** A destination's global id from its name or id. @throws ClientError NOT_FOUND (at `field`) when none has that name. */
  const destinationId = async (ref: string, field = "destination"): Promise<string> => {
    const { id } = idOrName("AlertDestination", ref);
    if (id) return id;
    const found = (await listDestinations()).find((d) => d.name === ref);
    if (!found) throw new ClientError("NOT_FOUND", `no alert destination is named "${ref}" (oodle monitors destinations list)`, field);
    return found.id;
  };

  return {
    monitorId,
    destinationId,
    listMonitors: async (filter: { state?: string; evaluatorId?: string } = {}): Promise<MonitorRecord[]> =>
      allNodes(async (after) =>
        (await api.request(Doc.ListMonitorsDocument, { state: filter.state as Doc.MonitorState | undefined, evaluatorId: filter.evaluatorId, first: PAGE_SIZE, after }))
          .monitors,
      ),
    /** One monitor, with its last `history` evaluations and transitions (0: none; at most 100, the API's page). */
    getMonitor: async (ref: string, history = 0): Promise<MonitorRecord> => {
      const id = await monitorId(ref);
      if (history <= 0) return (await api.request(Doc.GetMonitorDocument, { id })).monitor;
      const { monitor } = await api.request(Doc.GetMonitorWithHistoryDocument, { id, history });
      const { evaluations, transitions, ...fields } = monitor;
      return { ...fields, evaluations: evaluations.edges.map((e) => e.node), transitions: transitions.edges.map((e) => e.node) };
    },
    createMonitor: async (input: Record<string, unknown>) =>
      (await api.request(Doc.CreateMonitorDocument, { input: input as Doc.CreateMonitorInput })).createMonitor.monitor,
    updateMonitor: async (input: Record<string, unknown>) =>
      (await api.request(Doc.UpdateMonitorDocument, { input: input as Doc.UpdateMonitorInput })).updateMonitor.monitor,
    deleteMonitor: async (id: string) => (await api.request(Doc.DeleteMonitorDocument, { input: { id } })).deleteMonitor,
    muteMonitor: async (input: { id: string; until?: string; reason?: string }) =>
      (await api.request(Doc.MuteMonitorDocument, { input: input as Doc.MuteMonitorInput })).muteMonitor.monitor,
    unmuteMonitor: async (id: string) => (await api.request(Doc.UnmuteMonitorDocument, { input: { id } })).unmuteMonitor.monitor,
    resolveMonitor: async (input: { id: string; reason?: string }) =>
      (await api.request(Doc.ResolveMonitorDocument, { input: input as Doc.ResolveMonitorInput })).resolveMonitor.monitor,
    testFireMonitor: async (id: string) => (await api.request(Doc.TestFireMonitorDocument, { input: { id } })).testFireMonitor,
    listDestinations,
    createDestination: async (input: { name: string; kind: string; url: string }) =>
      (await api.request(Doc.CreateAlertDestinationDocument, { input: input as Doc.CreateAlertDestinationInput })).createAlertDestination,
    deleteDestination: async (id: string) => (await api.request(Doc.DeleteAlertDestinationDocument, { input: { id } })).deleteAlertDestination,
    listDeliveries: async (filter: { monitorId?: string; status?: string } = {}) =>
      allNodes(async (after) =>
        (await api.request(Doc.ListAlertDeliveriesDocument, { monitorId: filter.monitorId, status: filter.status as Doc.AlertDeliveryStatus | undefined, first: PAGE_SIZE, after }))
          .alertDeliveries,
      ),
  };
}

/** The monitor operations. */
export type MonitorOperations = ReturnType<typeof createMonitorOperations>;
