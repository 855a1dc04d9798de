// The page-cache channel between workspaces (exploits/page_cache_channel.py): a runner of one
// workspace writes bits into the residency of a host file every box binds, a runner of another
// workspace reads them. Each probe and the eviction are refused by the base seccomp filter.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Executor } from "../../src/execution/index.js";
import { exploitSource, item, keyFor, testExecutor } from "./helpers.js";

let executor: Executor;
beforeAll(() => {
  executor = testExecutor();
});
afterAll(() => executor.close());

const SOURCE = exploitSource("page_cache_channel.py");
const BITS = Array.from({ length: 40 }, (_, i) => (i % 3 === 0 || i % 7 === 2 ? 1 : 0));

describe("page cache between workspaces", () => {
  it.each([
    ["warm", "warm"],
    ["warm", "strict"],
  ] as const)("a %s runner of workspace A cannot evict shared pages, a %s runner of workspace B cannot probe them", async (senderMode, receiverMode) => {
    const sender = keyFor(SOURCE, { workspaceId: "ws-sender", templateVersionId: "page-cache-send", mode: senderMode });
    const receiver = keyFor(SOURCE, { workspaceId: "ws-receiver", templateVersionId: "page-cache-recv", mode: receiverMode });
    const [sent] = await executor.execute(sender, [item({ role: "send", bits: BITS }, "ws-sender")]);
    expect(sent!.outcome, JSON.stringify(sent!.error)).toBe("ok");
    const [received] = await executor.execute(receiver, [item({ role: "recv", count: BITS.length }, "ws-receiver")]);
    expect(received!.outcome, JSON.stringify(received!.error)).toBe("ok");
    const score = received!.scores[0]!;
    // Before the fix: {name: "received", metadata.bits: {preadv2: "1001…", mincore: "1001…", …}} equal to BITS.
    expect({ sender: sent!.scores[0]!.comment, name: score.name, bits: (score.metadata as { bits: unknown }).bits }).toEqual({
      sender: "fadvise DONTNEED: EPERM",
      name: "refused",
      bits: {},
    });
    expect((score.metadata as { answers: Record<string, string> }).answers).toEqual({
      "preadv2 RWF_NOWAIT": "EPERM",
      mincore: "EPERM",
      cachestat: "EPERM",
      getrusage: "EPERM",
      readahead: "EPERM",
    });
  });
});
