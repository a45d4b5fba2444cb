// Time is injected everywhere a rule depends on it (lockout, token expiry, staleness, position
// age, rate-limit windows) so tests move it instead of sleeping.
export interface Clock {
  now(): number; // epoch milliseconds
}

export const systemClock: Clock = { now: () => Date.now() };

/** A clock tests move by hand. */
export class ManualClock implements Clock {
  constructor(private t: number = Date.parse("2026-01-01T00:00:00.000Z")) {}
  now(): number {
    return this.t;
  }
  set(ms: number): void {
    this.t = ms;
  }
  advance(ms: number): void {
    this.t += ms;
  }
}

export const isoNow = (clock: Clock): string => new Date(clock.now()).toISOString();
