import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { configSchema, loadConfig } from "../../src/config.ts";
import { ROOT } from "../cli/process-helpers.ts";

// .env.example as systemd reads an EnvironmentFile= (deploy/trading-agent.service), and README's
// configuration table against the configuration schema: every variable the service reads is
// documented, in both places, and nothing else is.

/**
 * systemd's EnvironmentFile= rules (systemd.exec(5), env-file.c): blank lines and lines whose first
 * non-blank character is `#` or `;` are comments; otherwise KEY=VALUE with blanks around the key
 * and the value dropped. A value is taken literally, a `#` after it included; double quotes allow
 * backslash escapes, single quotes nothing; outside quotes a backslash takes the next character
 * literally and a backslash at the end of a line continues it.
 */
export function parseSystemdEnvironmentFile(text: string): Map<string, string> {
  const out = new Map<string, string>();
  const lines = text.replace(/\\\n/g, "").split("\n");
  for (const raw of lines) {
    const line = raw.trim();
    if (line === "" || line.startsWith("#") || line.startsWith(";")) continue;
    const eq = line.indexOf("=");
    if (eq <= 0) throw new Error(`not KEY=VALUE: ${line}`);
    const key = line.slice(0, eq).trim();
    let value = "";
    let quote: string | null = null;
    const rest = line.slice(eq + 1).trim();
    for (let i = 0; i < rest.length; i++) {
      const c = rest[i] as string;
      if (quote === "'") {
        if (c === "'") quote = null;
        else value += c;
      } else if (c === "\\") {
        i++;
        value += rest[i] ?? "";
      } else if (quote === '"') {
        if (c === '"') quote = null;
        else value += c;
      } else if (c === '"' || c === "'") quote = c;
      else value += c;
    }
    out.set(key, value);
  }
  return out;
}

const example = readFileSync(join(ROOT, ".env.example"), "utf8");
const readme = readFileSync(join(ROOT, "README.md"), "utf8");
const schemaVariables = Object.keys(configSchema.shape).toSorted();

test("the parser reads values as systemd does: a trailing comment belongs to the value", () => {
  const parsed = parseSystemdEnvironmentFile(
    '# c\n; c\n  A = 1  \nB=normal   # normal | full\nC="x \\"y\\""\nD=\'a\\b\'\n',
  );
  expect(Object.fromEntries(parsed)).toEqual({ A: "1", B: "normal   # normal | full", C: 'x "y"', D: "a\\b" });
});

test(".env.example is a valid systemd EnvironmentFile: every value passes the configuration schema", () => {
  const env = Object.fromEntries(parseSystemdEnvironmentFile(example));
  for (const [key, value] of Object.entries(env)) expect(value, key).not.toMatch(/\s#/);
  expect(() => loadConfig({ ...env, DATABASE_PATH: ":memory:" })).not.toThrow();
});

test(".env.example names every configuration variable (set or commented out) and nothing else", () => {
  const named = new Set([...example.matchAll(/^#?\s*([A-Z][A-Z0-9_]*)=/gm)].map((m) => m[1] as string));
  named.delete("WALLET_1");
  expect([...named].toSorted()).toEqual(schemaVariables);
});

test("README's configuration table is the configuration schema, in one table", () => {
  const start = readme.indexOf("\n## Configuration\n");
  const end = readme.indexOf("\n## ", start + 1);
  const section = readme.slice(start, end);
  const rows = section.split("\n").filter((l) => l.startsWith("| `"));
  const documented = rows.flatMap((row) =>
    [...(row.split("|")[1] ?? "").matchAll(/`([A-Z][A-Z0-9_]*)`/g)].map((m) => m[1] as string),
  );
  expect(documented).toEqual([...new Set(documented)]);
  const withoutWallets = documented.filter((v) => !/^WALLET_\d+$/.test(v));
  expect(withoutWallets.toSorted()).toEqual(schemaVariables);
  // The table is one block: no row of it stands after the section's first paragraph below it.
  const tableLines = section.split("\n").filter((l) => l.startsWith("|"));
  const first = section.indexOf(tableLines[0] as string);
  const last = section.indexOf(tableLines.at(-1) as string) + (tableLines.at(-1) as string).length;
  expect(
    section
      .slice(first, last)
      .split("\n")
      .every((l) => l.startsWith("|")),
  ).toBe(true);
  // Nowhere else in README is a configuration row (variable | default | meaning).
  const outside = readme.slice(0, start) + readme.slice(end);
  const stray = outside
    .split("\n")
    .filter(
      (l) =>
        l.split("|").length === 5 &&
        /^\| `[A-Z][A-Z0-9_]*` \|/.test(l) &&
        schemaVariables.includes(/`([A-Z0-9_]+)`/.exec(l)?.[1] ?? ""),
    );
  expect(stray).toEqual([]);
});

test("README has each section once; the Layout is docs/architecture.md's, once, and linked", () => {
  const headingsOf = (text: string) => [...text.matchAll(/^## (.+)$/gm)].map((m) => m[1] as string);
  const headings = headingsOf(readme);
  expect(headings.filter((h, i) => headings.indexOf(h) !== i)).toEqual([]);
  expect(headings.filter((h) => h === "Layout")).toHaveLength(0);
  const architecture = readFileSync(join(ROOT, "docs", "architecture.md"), "utf8");
  expect(headingsOf(architecture).filter((h) => h === "Layout")).toHaveLength(1);
  expect(readme).toContain("](docs/architecture.md)");
});
