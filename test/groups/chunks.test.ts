// Group documents go to the sandbox in chunks of at most MAX_CALL_BYTES (the runner's frame is 64 MiB at most).
import { describe, expect, it } from "vitest";
import { chunksByBytes, MAX_CALL_BYTES } from "../../src/modules/runs/group-processor.js";

const MiB = 1024 * 1024;

describe("chunksByBytes", () => {
  it("keeps order and cuts before the item that would pass the bound; an item over it goes alone", () => {
    expect(MAX_CALL_BYTES).toBe(24 * MiB);
    const sizes = { a: 10 * MiB, b: 10 * MiB, c: 10 * MiB, d: 1 * MiB, e: 30 * MiB, f: 1 };
    const chunks = chunksByBytes(Object.keys(sizes) as (keyof typeof sizes)[], (k) => sizes[k]);
    expect(chunks).toEqual([["a", "b"], ["c", "d"], ["e"], ["f"]]);
    expect(chunksByBytes([], () => 1)).toEqual([]);
  });
});
