import type { Context } from "hono";

// CSV per RFC 4180 (PRODUCT.md §4): CRLF line ends; a field with a comma, quote, CR or LF is
// quoted with inner quotes doubled. A text cell starting with = + - @ (or tab / CR) is prefixed
// with ' so a spreadsheet never runs it as a formula. Plain numbers such as "-0.25" are data, not
// formulas, and stay as they are (docs/decisions.md).

const NUMBER = /^-?\d+(\.\d+)?([eE][-+]?\d+)?$/;

function csvCell(value: unknown): string {
  if (value === null || value === undefined) return "";
  let s = typeof value === "string" ? value : typeof value === "object" ? JSON.stringify(value) : String(value);
  if (/^[=+\-@\t\r]/.test(s) && !NUMBER.test(s)) s = `'${s}`;
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

export function csvLine(values: readonly unknown[]): string {
  return `${values.map(csvCell).join(",")}\r\n`;
}

/**
 * Streams rows as CSV: the header, then one line per row pulled lazily from `rows`, in chunks,
 * so an export of 100,000 rows never holds them all in memory.
 */
function csvStream<T extends object>(
  columns: readonly (keyof T & string)[],
  rows: Iterable<T>,
): ReadableStream<Uint8Array> {
  const enc = new TextEncoder();
  const it = rows[Symbol.iterator]();
  let headerSent = false;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      let chunk = "";
      if (!headerSent) {
        chunk += csvLine(columns);
        headerSent = true;
      }
      for (let i = 0; i < 500; i++) {
        const next = it.next();
        if (next.done) {
          if (chunk) controller.enqueue(enc.encode(chunk));
          controller.close();
          return;
        }
        chunk += csvLine(columns.map((col) => next.value[col]));
      }
      controller.enqueue(enc.encode(chunk));
    },
    cancel() {
      it.return?.();
    },
  });
}

export function csvResponse<T extends object>(
  c: Context,
  filename: string,
  columns: readonly (keyof T & string)[],
  rows: Iterable<T>,
): Response {
  return c.body(csvStream(columns, rows), 200, {
    "Content-Type": "text/csv; charset=utf-8",
    "Content-Disposition": `attachment; filename="${filename}"`,
  });
}
