// Display helpers: numbers as the API sends them (numbers or decimal strings), times in the
// viewer's locale.

const toNum = (v: unknown): number | null => {
  if (v === null || v === undefined || v === "") return null;
  const n = typeof v === "number" ? v : Number(v);
  return Number.isFinite(n) ? n : null;
};

/**
 * Below 1, four significant digits: a micro-priced token's 0.000000142857 reads 0.0000001429, not
 * 0.00000014, whose next tick would look like a jump. From 1 up, `maxDigits` decimals.
 */
export function fmtNum(v: unknown, maxDigits = 4): string {
  const n = toNum(v);
  if (n === null) return "–";
  if (n !== 0 && Math.abs(n) < 1) return n.toLocaleString(undefined, { maximumSignificantDigits: 4 });
  return n.toLocaleString(undefined, { maximumFractionDigits: maxDigits });
}

export const fmtSol = (v: unknown) => `${fmtNum(v, 4)} SOL`;
export function fmtUsd(v: unknown): string {
  const n = toNum(v);
  if (n === null) return "–";
  const abs = Math.abs(n);
  const digits = abs !== 0 && abs < 1 ? { maximumSignificantDigits: 4 } : { maximumFractionDigits: 2 };
  return `${n < 0 ? "−" : ""}$${abs.toLocaleString(undefined, digits)}`;
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

/** How long ago an ISO time was, coarsely: "3 min ago", "2 h ago". */
export function ago(iso: string, now = Date.now()): string {
  const s = Math.max(0, Math.round((now - new Date(iso).getTime()) / 1000));
  if (s < 60) return `${s} s ago`;
  if (s < 3600) return `${Math.floor(s / 60)} min ago`;
  if (s < 86_400) return `${Math.floor(s / 3600)} h ago`;
  return `${Math.floor(s / 86_400)} d ago`;
}

/** How long a position has been held: "45 min", "5 h 12 min", "3 d 4 h" (two units at most). */
export function heldFor(since: string, now = Date.now()): string {
  const min = Math.max(0, Math.floor((now - new Date(since).getTime()) / 60_000));
  if (min < 60) return `${min} min`;
  const h = Math.floor(min / 60);
  if (h < 24) return `${h} h ${min % 60} min`;
  return `${Math.floor(h / 24)} d ${h % 24} h`;
}
