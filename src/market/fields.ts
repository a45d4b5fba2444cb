import { Big } from "../money.ts";

// Null-safe readers for provider JSON: any field may be missing, null or of another type
// (DexScreener says so outright). A value that is not what we expect reads as null, never as 0.

export type Json = Record<string, unknown>;

export const isObject = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);

export const obj = (v: unknown): Json | null => (isObject(v) ? v : null);

export const str = (v: unknown): string | null => (typeof v === "string" && v !== "" ? v : null);

/** A finite number, from a number or a numeric string. */
export function num(v: unknown): number | null {
  if (typeof v === "number") return Number.isFinite(v) ? v : null;
  if (typeof v === "string" && v.trim() !== "" && /^-?\d+(\.\d+)?([eE][-+]?\d+)?$/.test(v.trim())) {
    const n = Number(v);
    return Number.isFinite(n) ? n : null;
  }
  return null;
}

/** A whole number (integers only). */
export function int(v: unknown): number | null {
  const n = num(v);
  return n !== null && Number.isInteger(n) ? n : null;
}

/** A non-negative whole-number string (atomic units). */
export const atomic = (v: unknown): string | null =>
  typeof v === "string" && /^\d+$/.test(v)
    ? v
    : typeof v === "number" && Number.isSafeInteger(v) && v >= 0
      ? String(v)
      : null;

/** Canonical decimal text (no exponent) of a number or numeric string; null when not numeric. */
export function decimalText(v: unknown): string | null {
  const n = typeof v === "string" ? (num(v) === null ? null : v.trim()) : num(v);
  if (n === null) return null;
  try {
    const b = new Big(n);
    const s = b.toFixed();
    return s.includes(".") ? s.replace(/0+$/, "").replace(/\.$/, "") : s;
  } catch {
    return null;
  }
}

/** A strictly positive decimal text, else null (a price of 0 means "no price"). */
export function positiveDecimal(v: unknown): string | null {
  const s = decimalText(v);
  return s !== null && new Big(s).gt(0) ? s : null;
}
