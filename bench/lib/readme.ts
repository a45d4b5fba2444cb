import { describeMachine, type Machine } from "./machine.ts";

// The performance table (docs/performance.md, linked from README) is generated:
// `npm run bench -- --update-readme` replaces what
// lies between the two markers with the latest run's table and machine line.

export const START = "<!-- bench:start -->";
export const END = "<!-- bench:end -->";

export interface RunSummary {
  generatedAt: string;
  machine: Machine;
  loadGenerator: string;
  durationS: number;
  table: string;
}

export function readmeBlock(r: RunSummary): string {
  return [
    `Run of ${r.generatedAt.slice(0, 10)} on ${describeMachine(r.machine)}; load generator ${r.loadGenerator}; the whole run took ${r.durationS} s.`,
    "",
    r.table,
  ].join("\n");
}

/** `text` with the block between the markers replaced, or null when the markers are missing. */
export function replaceBetweenMarkers(text: string, block: string): string | null {
  const a = text.indexOf(START);
  const b = text.indexOf(END);
  if (a < 0 || b < a) return null;
  return `${text.slice(0, a + START.length)}\n${block}\n${text.slice(b)}`;
}
