import { setFile, concatLines } from "../demo/sources.js";
import type { Readable } from "node:stream";

/** The sets whose replies the experiment bench scores (they all carry an application output). */
export const BENCH_SETS = ["halueval", "xstest", "llmfao", "truthfulqa"];

/**
 * 10,000 real items as one JSON Lines stream: the halueval, xstest, llmfao and truthfulqa items of
 * ../shared/data (6,221), cycled to reach `total` (repeats get an id suffix). Without ../shared
 * the copies in data/demo are cycled instead.
 */
export function benchItems(total = 10_000): { stream: Readable; shared: boolean } {
  const files = BENCH_SETS.map(setFile);
  return { stream: concatLines(files.map((f) => f.file), Infinity, total), shared: files.every((f) => f.shared) };
}
