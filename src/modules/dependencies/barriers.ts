/**
 * How long a barrier (runs/flows.ts) waits at most, in ms: a code dependency normally finishes in
 * seconds; people may take days to post scores. Here, below both, because the flows (runs/) set it
 * and the waits read back on a span (spans/waiting.ts) report it.
 */
export const BARRIER_DELAY_MS = { code: 24 * 3_600_000, external: 7 * 24 * 3_600_000 } as const;
