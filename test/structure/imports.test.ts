import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";

// Folder loops make a layer impossible to change alone (issue 12). This test reads every import in
// src/ (type-only imports included: a type loop is still a loop a reader has to untangle) and fails
// on a cycle between top-level units of src: a folder (src/agents/) or a file at the root of src
// (src/services.ts). Root files count one by one because they are the composition (services.ts,
// app.ts, server.ts) and the shared leaves (errors.ts, clock.ts) that every folder may use.

const SRC = resolve(import.meta.dir, "../../src");

/**
 * Cycles tolerated for now, as the sorted units of each strongly connected group: none since the
 * data layer moved into src/db/repositories (agents → wallets → ledgers → db is a downward chain).
 * The test also fails when an entry here no longer exists, so a fixed loop cannot come back.
 */
const KNOWN: readonly string[] = [];

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(p);
    return /\.tsx?$/.test(e.name) ? [p] : [];
  });
}

function unitOf(file: string): string {
  const parts = relative(SRC, file).split("/");
  return parts.length === 1 ? (parts[0] as string) : `${parts[0]}/`;
}

/** Relative specifiers of static imports, re-exports and dynamic imports. */
export function importSpecifiers(source: string): string[] {
  const out: string[] = [];
  const patterns = [/\b(?:import|export)\s[^;]*?\sfrom\s*["']([^"']+)["']/g, /\bimport\s*\(\s*["']([^"']+)["']\s*\)/g];
  for (const re of patterns) for (const m of source.matchAll(re)) out.push(m[1] as string);
  return out.filter((s) => s.startsWith("."));
}

function unitGraph(): Map<string, Set<string>> {
  const graph = new Map<string, Set<string>>();
  for (const file of sourceFiles(SRC)) {
    const from = unitOf(file);
    if (!graph.has(from)) graph.set(from, new Set());
    for (const spec of importSpecifiers(readFileSync(file, "utf8"))) {
      const target = resolve(dirname(file), spec);
      if (!target.startsWith(`${SRC}/`)) continue;
      const to = unitOf(target);
      if (to !== from) graph.get(from)?.add(to);
    }
  }
  return graph;
}

/** Tarjan's strongly connected components; every group of two or more units is a cycle. */
export function cycles(graph: Map<string, Set<string>>): string[] {
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[] = [];
  const visit = (v: string): void => {
    index.set(v, counter);
    low.set(v, counter++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v) as number, low.get(w) as number));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v) as number, index.get(w) as number));
    }
    if (low.get(v) === index.get(v)) {
      const group: string[] = [];
      let w: string;
      do {
        w = stack.pop() as string;
        onStack.delete(w);
        group.push(w);
      } while (w !== v);
      if (group.length > 1) found.push(group.sort().join(" "));
    }
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return found.sort();
}

/** For a failure message: which imports make up a cycle. */
function edgesWithin(graph: Map<string, Set<string>>, group: string): string[] {
  const units = new Set(group.split(" "));
  return [...units].flatMap((a) => [...(graph.get(a) ?? [])].filter((b) => units.has(b)).map((b) => `${a} → ${b}`));
}

describe("imports between top-level folders of src", () => {
  const graph = unitGraph();

  test("the parser sees imports, re-exports, type imports and dynamic imports", () => {
    const specs = importSpecifiers(`
      import { a } from "./a.ts";
      import type { B } from "../b/b.ts";
      import {
        c,
        d,
      } from "./c.ts";
      export { e } from "./e.ts";
      export * from "./f.ts";
      const g = await import("./g.ts");
      import { h } from "hono";
    `);
    expect(specs).toEqual(["./a.ts", "../b/b.ts", "./c.ts", "./e.ts", "./f.ts", "./g.ts"]);
  });

  test("the cycle finder reports a loop of any length and nothing else", () => {
    const g = new Map<string, Set<string>>([
      ["a/", new Set(["b/"])],
      ["b/", new Set(["c/"])],
      ["c/", new Set(["a/", "d.ts"])],
      ["d.ts", new Set()],
      ["e/", new Set(["d.ts"])],
    ]);
    expect(cycles(g)).toEqual(["a/ b/ c/"]);
  });

  test("the graph is the real one (services.ts builds the domain folders; http/ depends on it)", () => {
    expect(graph.get("services.ts")?.has("trading/")).toBe(true);
    expect(graph.get("http/")?.has("services.ts")).toBe(true);
  });

  test("services.ts does not import http/ (the HTTP layer builds its own pieces from services)", () => {
    expect([...(graph.get("services.ts") ?? [])].filter((u) => u === "http/")).toEqual([]);
  });

  test("no cycles between top-level units except the known ones", () => {
    const found = cycles(graph);
    const unexpected = found.filter((c) => !KNOWN.includes(c));
    expect(unexpected.map((c) => `${c}: ${edgesWithin(graph, c).join(", ")}`)).toEqual([]);
    // A known cycle that is gone must leave the list, so that it cannot come back unnoticed.
    expect(KNOWN.filter((c) => !found.includes(c))).toEqual([]);
  });
});
