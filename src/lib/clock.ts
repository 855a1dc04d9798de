/**
 * Where time-driven features read the time (monitors' windows, renotify and mute expiry, the
 * replay window of webhook signatures): injectable, so tests move time forward instead of sleeping.
 */
export interface Clock {
  /** The current time. */
  now(): Date;
}

/** The machine's clock. */
export const systemClock: Clock = { now: () => new Date() };
