import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";

// SQL only in the data layer (STYLE.md "Habits", issue 44 item 8): no file of src/ outside src/db/
// imports drizzle's query builders or speaks to SQLite itself (a PRAGMA, a statement, a query).
// Services call repositories; adding a column stays one change in src/db/.

const root = join(import.meta.dir, "../..");
const files = [...new Bun.Glob("src/**/*.{ts,tsx}").scanSync({ cwd: root })]
  .filter((f) => !f.startsWith("src/db/"))
  .sort();

const SQL_SIGNS: ReadonlyArray<[string, RegExp]> = [
  ["imports drizzle-orm", /from\s+["']drizzle-orm(\/[^"']*)?["']/],
  ["a PRAGMA", /\bPRAGMA\b/],
  ["SQLite statements", /\bsqlite\s*\.\s*(exec|query|prepare|run)\s*[<(]/],
  [
    "a SQL statement in a string",
    /["'`]\s*(SELECT\s[^"'`]*\bFROM\b|INSERT INTO\s|UPDATE \w+ SET\s|DELETE FROM\s|CREATE TABLE\s)/,
  ],
];

test("no SQL outside src/db/", () => {
  const found: string[] = [];
  for (const f of files) {
    const text = readFileSync(join(root, f), "utf8");
    for (const [what, re] of SQL_SIGNS) if (re.test(text)) found.push(`${f}: ${what}`);
  }
  expect(found).toEqual([]);
});
