/** The time, as a port so tests can fix it. */
export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
}
