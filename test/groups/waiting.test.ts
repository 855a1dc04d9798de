// describeGroupEvaluation (src/modules/groups/waiting.ts): a trace's or session's evaluation in
// words, from its GroupSchedule row and current run, with times worked out by hand.
import { describe, expect, it } from "vitest";
import { describeGroupEvaluation, groupState, type RunView, type ScheduleView } from "../../src/modules/groups/waiting.js";

const at = (hms: string) => new Date(`2026-12-03T${hms}.000Z`);
/** A trace evaluator's defaults: 30 s quiet, 10 min maximum wait. */
const TRACE = { quietPeriodMs: 30_000, maxWaitMs: 600_000 };
/** A session evaluator's defaults: 15 min quiet, 4 h maximum wait. */
const SESSION = { quietPeriodMs: 900_000, maxWaitMs: 14_400_000 };

/** A trace's first round (its schedule computed with TRACE): one span at 15:00:00, nothing queued or run. */
function schedule(over: Partial<ScheduleView> = {}): ScheduleView {
  return {
    firstSpanAt: at("15:00:00"),
    lastSpanAt: at("15:00:00"),
    spanCount: 1,
    ...TRACE,
    markerAt: null,
    dueAt: at("15:00:30"),
    generation: 1,
    queuedGeneration: null,
    queuedAt: null,
    ranGeneration: null,
    ranAt: null,
    staleSince: null,
    ...over,
  };
}

function run(over: Partial<RunView> = {}): RunView {
  return { completion: "quiet_period", groupSpanCount: 7, documentCapped: false, outcome: "ok", finishedAt: at("15:00:32"), createdAt: at("15:00:32"), ...over };
}

describe("describeGroupEvaluation", () => {
  it("waiting for the quiet period: lastSpanAt 15:00:00 + 30 s = 15:00:30 comes before firstSpanAt + 10 min", () => {
    expect(describeGroupEvaluation(schedule(), null, at("15:00:10"))).toEqual({ state: "waiting", detail: "waiting: quiet until 2026-12-03T15:00:30.000Z (30 s after the latest span)" });
    // A later span slides it: 15:00:20 + 30 s = 15:00:50.
    const slid = schedule({ lastSpanAt: at("15:00:20"), spanCount: 4, dueAt: at("15:00:50") });
    expect(describeGroupEvaluation(slid, null, at("15:00:21")).detail).toBe("waiting: quiet until 2026-12-03T15:00:50.000Z (30 s after the latest span)");
    // Past its due time and not queued yet (the poller is behind): said so.
    expect(describeGroupEvaluation(slid, null, at("15:00:51")).detail).toBe("waiting: quiet until 2026-12-03T15:00:50.000Z (30 s after the latest span); due, not queued yet");
  });

  it("waiting for the maximum wait: firstSpanAt 15:00:00 + 10 min = 15:10:00 comes before lastSpanAt 15:09:50 + 30 s = 15:10:20", () => {
    const busy = schedule({ lastSpanAt: at("15:09:50"), spanCount: 120, dueAt: at("15:10:00") });
    expect(describeGroupEvaluation(busy, null, at("15:09:55"))).toEqual({ state: "waiting", detail: "waiting: the maximum wait ends at 2026-12-03T15:10:00.000Z (10 min after the first span)" });
    // A tie (lastSpanAt 15:09:30 + 30 s = 15:10:00 = firstSpanAt + 10 min): the maximum wait.
    const tie = schedule({ lastSpanAt: at("15:09:30"), dueAt: at("15:10:00") });
    expect(describeGroupEvaluation(tie, null, at("15:09:40")).detail).toBe("waiting: the maximum wait ends at 2026-12-03T15:10:00.000Z (10 min after the first span)");
  });

  it("a session's quiet period: lastSpanAt 15:00:00 + 15 min = 15:15:00", () => {
    const s = schedule({ ...SESSION, dueAt: at("15:15:00") });
    expect(describeGroupEvaluation(s, null, at("15:05:00")).detail).toBe("waiting: quiet until 2026-12-03T15:15:00.000Z (15 min after the latest span)");
    // A conversation still going at 18:55:00: firstSpanAt 15:00:00 + 4 h = 19:00:00 comes before 18:55:00 + 15 min.
    const max = schedule({ ...SESSION, lastSpanAt: at("18:55:00"), dueAt: at("19:00:00") });
    expect(describeGroupEvaluation(max, null, at("18:56:00")).detail).toBe("waiting: the maximum wait ends at 2026-12-03T19:00:00.000Z (4 h after the first span)");
  });

  it("an end marker: due at once, then queued", () => {
    const marked = schedule({ lastSpanAt: at("15:00:05"), spanCount: 6, markerAt: at("15:00:05"), dueAt: at("15:00:05") });
    expect(describeGroupEvaluation(marked, null, at("15:00:05"))).toEqual({ state: "waiting", detail: "waiting: end marker arrived at 2026-12-03T15:00:05.000Z; runs at once; due, not queued yet" });
    const queued = { ...marked, queuedGeneration: 1, queuedAt: at("15:00:06") };
    expect(describeGroupEvaluation(queued, null, at("15:00:06"))).toEqual({ state: "queued", detail: "end marker arrived at 2026-12-03T15:00:05.000Z; queued at 2026-12-03T15:00:06.000Z" });
  });

  it("queued after the quiet period, and after the maximum wait", () => {
    const quiet = schedule({ queuedGeneration: 1, queuedAt: at("15:00:31") });
    expect(describeGroupEvaluation(quiet, null, at("15:00:31"))).toEqual({ state: "queued", detail: "queued at 2026-12-03T15:00:31.000Z (the quiet period ended at 2026-12-03T15:00:30.000Z)" });
    const max = schedule({ lastSpanAt: at("15:09:50"), dueAt: at("15:10:00"), queuedGeneration: 1, queuedAt: at("15:10:01") });
    expect(describeGroupEvaluation(max, null, at("15:10:02")).detail).toBe("queued at 2026-12-03T15:10:01.000Z (the maximum wait ended at 2026-12-03T15:10:00.000Z)");
  });

  it("ran: why and on how many spans; at the maximum wait says so; a failed or capped run says so", () => {
    const ran = schedule({ spanCount: 7, dueAt: null, queuedGeneration: 1, queuedAt: at("15:00:31"), ranGeneration: 1, ranAt: at("15:00:32") });
    expect(describeGroupEvaluation(ran, run(), at("15:05:00"))).toEqual({ state: "ran", detail: "ran at 2026-12-03T15:00:32.000Z (quiet period, 7 spans)" });
    expect(describeGroupEvaluation(ran, run({ completion: "end_marker", groupSpanCount: 1 }), at("15:05:00")).detail).toBe("ran at 2026-12-03T15:00:32.000Z (end marker, 1 span)");
    expect(describeGroupEvaluation(ran, run({ completion: "max_wait", groupSpanCount: 120 }), at("15:15:00")).detail).toBe("ran at the maximum wait with 120 spans, at 2026-12-03T15:00:32.000Z");
    expect(describeGroupEvaluation(ran, run({ outcome: "user_error", documentCapped: true }), at("15:05:00")).detail).toBe(
      "ran at 2026-12-03T15:00:32.000Z (quiet period, 7 spans); outcome user_error, its document was capped",
    );
    // A backfill's rerun replaced the live round's run later: its own time, not the schedule's ranAt.
    expect(describeGroupEvaluation(ran, run({ completion: null, backfillId: "b-1", finishedAt: at("15:04:10"), createdAt: at("15:04:10") }), at("15:05:00")).detail).toBe("ran at 2026-12-03T15:04:10.000Z (by a backfill, 7 spans)");
    // The generation ran while dueAt is still set (the writer clears it in the same statement, or not): still ran.
    expect(groupState({ ...ran, dueAt: at("15:00:30") })).toBe("ran");
  });

  it("stale: ran at T1, stale since T2 (a late span), runs again at T3 = the late span + 30 s; then queued again", () => {
    const stale = schedule({
      firstSpanAt: at("15:02:00"),
      lastSpanAt: at("15:02:05"),
      spanCount: 9,
      dueAt: at("15:02:35"),
      generation: 2,
      queuedGeneration: 1,
      queuedAt: at("15:00:31"),
      ranGeneration: 1,
      ranAt: at("15:00:32"),
      staleSince: at("15:02:00"),
    });
    expect(describeGroupEvaluation(stale, run(), at("15:02:10"))).toEqual({
      state: "stale",
      detail: "ran at 2026-12-03T15:00:32.000Z (quiet period, 7 spans), stale since 2026-12-03T15:02:00.000Z, runs again at 2026-12-03T15:02:35.000Z (30 s after the latest span)",
    });
    // The late round reaches its maximum wait first (firstSpanAt 15:02:00 + 10 min = 15:12:00).
    const long = { ...stale, lastSpanAt: at("15:11:45"), dueAt: at("15:12:00") };
    expect(describeGroupEvaluation(long, run(), at("15:11:50")).detail).toBe(
      "ran at 2026-12-03T15:00:32.000Z (quiet period, 7 spans), stale since 2026-12-03T15:02:00.000Z, runs again at 2026-12-03T15:12:00.000Z (the maximum wait, 10 min after the first span)",
    );
    const requeued = { ...stale, queuedGeneration: 2, queuedAt: at("15:02:36") };
    expect(describeGroupEvaluation(requeued, run(), at("15:02:36"))).toEqual({
      state: "queued",
      detail: "ran at 2026-12-03T15:00:32.000Z (quiet period, 7 spans), stale since 2026-12-03T15:02:00.000Z; queued again at 2026-12-03T15:02:36.000Z (the quiet period ended at 2026-12-03T15:02:35.000Z)",
    });
    // The second run written: ran, on 9 spans.
    const reran = { ...requeued, dueAt: null, ranGeneration: 2, ranAt: at("15:02:38"), staleSince: null };
    expect(describeGroupEvaluation(reran, run({ groupSpanCount: 9 }), at("15:03:00"))).toEqual({ state: "ran", detail: "ran at 2026-12-03T15:02:38.000Z (quiet period, 9 spans)" });
  });

  it("a round queued and not run yet, with spans arrived since: queued, and runs again after them", () => {
    // Round 1 queued at 15:00:31; a span at 15:00:40 starts round 2 (15:00:40 + 30 s = 15:01:10) before round 1's run is written.
    const inFlight = schedule({ firstSpanAt: at("15:00:40"), lastSpanAt: at("15:00:40"), spanCount: 2, dueAt: at("15:01:10"), generation: 2, queuedGeneration: 1, queuedAt: at("15:00:31"), staleSince: at("15:00:40") });
    expect(describeGroupEvaluation(inFlight, null, at("15:00:45"))).toEqual({
      state: "queued",
      detail: "queued at 2026-12-03T15:00:31.000Z; spans arrived since 2026-12-03T15:00:40.000Z: runs again at 2026-12-03T15:01:10.000Z (30 s after the latest span)",
    });
    // Round 2 queued too (round 1 still not written): queued, no "ran" said.
    expect(describeGroupEvaluation({ ...inFlight, queuedGeneration: 2, queuedAt: at("15:01:11") }, null, at("15:01:12")).detail).toBe("queued at 2026-12-03T15:01:11.000Z (the quiet period ended at 2026-12-03T15:01:10.000Z)");
  });

  it("groupState: each state from the columns alone", () => {
    expect(groupState(schedule())).toBe("waiting");
    expect(groupState(schedule({ queuedGeneration: 1 }))).toBe("queued");
    expect(groupState(schedule({ generation: 2, queuedGeneration: 1, ranGeneration: 1, staleSince: at("15:01:00") }))).toBe("stale");
    expect(groupState(schedule({ generation: 2, queuedGeneration: 2, ranGeneration: 1, staleSince: at("15:01:00") }))).toBe("queued");
    expect(groupState(schedule({ dueAt: null, ranGeneration: 1 }))).toBe("ran");
    expect(groupState(schedule({ dueAt: null }))).toBe("waiting");
    expect(groupState(schedule({ generation: 2, queuedGeneration: 1, staleSince: at("15:01:00") }))).toBe("queued");
    expect(groupState(schedule({ generation: 3, queuedGeneration: 2, ranGeneration: 1, staleSince: at("15:01:00") }))).toBe("queued");
  });
});
