import type { Timer } from "../../src/market/timer.ts";

// A Timer whose sleep returns at once and moves its clock forward instead: retry back-off,
// Retry-After and rate-limit waits cost no real time, and tests can assert what was waited.

export class VirtualTimer implements Timer {
  /** Every wait asked for, in ms, in order. */
  readonly sleeps: number[] = [];

  constructor(private t: number = Date.parse("2026-01-01T00:00:00.000Z")) {}

  now(): number {
    return this.t;
  }

  async sleep(ms: number): Promise<void> {
    this.sleeps.push(ms);
    if (ms > 0) this.t += ms;
    await Promise.resolve();
  }

  advance(ms: number): void {
    this.t += ms;
  }
}
