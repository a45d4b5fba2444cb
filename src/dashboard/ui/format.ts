// Display helpers: numbers as the API sends them (numbers or decimal strings), times in the
// viewer's locale.

const toNum = (v: unknown): number | null => {
  if (v === null || v === undefined || v === "") return null;
  const n = typeof v === "number" ? v : Number(v);
  return Number.isFinite(n) ? n : null;
};

export function fmtNum(v: unknown, maxDigits = 4): string {
  const n = toNum(v);
  if (n === null) return "–";
  const digits = Math.abs(n) !== 0 && Math.abs(n) < 0.001 ? 8 : maxDigits;
  return n.toLocaleString(undefined, { maximumFractionDigits: digits });
}

export const fmtSol = (v: unknown) => `${fmtNum(v, 4)} SOL`;
export function fmtUsd(v: unknown): string {
  const n = toNum(v);
  if (n === null) return "–";
  return `${n < 0 ? "−" : ""}$${Math.abs(n).toLocaleString(undefined, { maximumFractionDigits: Math.abs(n) < 1 ? 6 : 2 })}`;
}
export function fmtPct(v: unknown): string {
  const n = toNum(v);
  return n === null ? "–" : `${n > 0 ? "+" : ""}${n.toFixed(2)} %`;
}

/** CSS class for a profit or a loss. */
export function plClass(v: unknown): string {
  const n = toNum(v);
  return n === null || n === 0 ? "" : n > 0 ? "gain" : "loss";
}

export function fmtTime(iso: unknown): string {
  if (typeof iso !== "string" || !iso) return "–";
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : d.toLocaleString();
}

export const short = (s: string, n = 6) => (s.length > 2 * n + 1 ? `${s.slice(0, n)}…${s.slice(-n)}` : s);

/** A datetime-local input's value as ISO 8601 (empty stays empty). */
export const localToIso = (v: string) => (v ? new Date(v).toISOString() : "");
