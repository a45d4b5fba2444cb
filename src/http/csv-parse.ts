// CSV reading per RFC 4180, the inverse of src/http/csv.ts: fields separated by commas, records
// by CRLF (a bare LF is accepted too: files edited on Unix), a field in double quotes may hold
// commas, quotes (doubled) and line breaks. A UTF-8 byte-order mark before the header is skipped
// (spreadsheets write one). The export's formula guard — a `'` put before a text cell starting
// with = + - @ tab or CR — is undone by uncell(), so an exported file imports as it was.

export class CsvSyntaxError extends Error {
  constructor(
    message: string,
    /** 1-based record number (the header is record 1), as a spreadsheet numbers its rows. */
    readonly record: number,
  ) {
    super(message);
  }
}

/** Splits `text` into records of fields. Stops with CsvSyntaxError at the first malformed record. */
export function parseCsv(text: string, maxRecords = Number.POSITIVE_INFINITY): string[][] {
  const records: string[][] = [];
  let i = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  const n = text.length;
  let record: string[] = [];
  let field = "";
  while (i <= n) {
    if (records.length >= maxRecords) break;
    const ch = text[i];
    if (ch === '"' && field === "") {
      // Quoted field: runs to the closing quote; "" inside is one quote.
      let j = i + 1;
      let out = "";
      for (;;) {
        const q = text.indexOf('"', j);
        if (q < 0) throw new CsvSyntaxError("unterminated quoted field", records.length + 1);
        out += text.slice(j, q);
        if (text[q + 1] === '"') {
          out += '"';
          j = q + 2;
          continue;
        }
        i = q + 1;
        break;
      }
      const next = text[i];
      if (next !== undefined && next !== "," && next !== "\r" && next !== "\n")
        throw new CsvSyntaxError("text after a closing quote", records.length + 1);
      field = out;
      // Mark as quoted-and-done so a following character is handled below.
      if (next === undefined) {
        record.push(field);
        records.push(record);
        return records;
      }
      continue;
    }
    if (ch === ",") {
      record.push(field);
      field = "";
      i++;
      continue;
    }
    if (ch === "\r" || ch === "\n" || ch === undefined) {
      record.push(field);
      field = "";
      // A blank line (one empty field) is not a record: trailing newlines are common.
      if (!(record.length === 1 && record[0] === "")) records.push(record);
      record = [];
      if (ch === "\r" && text[i + 1] === "\n") i++;
      i++;
      continue;
    }
    if (ch === '"') throw new CsvSyntaxError("a quote inside an unquoted field", records.length + 1);
    // Plain run up to the next separator.
    let j = i;
    while (j < n && text[j] !== "," && text[j] !== "\r" && text[j] !== "\n" && text[j] !== '"') j++;
    field += text.slice(i, j);
    i = j;
  }
  return records;
}

const GUARDED = /^'[=+\-@\t\r]/;

/** Undoes the export's formula guard (src/http/csv.ts csvCell): `'=1+1` reads as `=1+1`. */
export function uncell(value: string): string {
  return GUARDED.test(value) ? value.slice(1) : value;
}
