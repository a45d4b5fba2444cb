import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";

// The live path is one module (issue 32, docs/decisions/live-module.md): one folder,
// src/trading/live/, whose entrance index.ts lists the stages in order and names the one
// inspection gate. This test keeps it so: no import circle between the files of src/trading (the
// live folder and everything it shares types with), nothing outside the folder reaching past its
// entrance, and every file of the folder placed on the entrance's stage list.

const SRC = resolve(import.meta.dir, "../../src");
const TRADING = join(SRC, "trading");
const LIVE = join(TRADING, "live");
const ENTRANCE = join(LIVE, "index.ts");

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(p);
    return /\.tsx?$/.test(e.name) ? [p] : [];
  });
}

/** Relative specifiers of static imports (type-only too), re-exports and dynamic imports. */
function importSpecifiers(source: string): string[] {
  const out: string[] = [];
  const patterns = [/\b(?:import|export)\s[^;]*?\sfrom\s*["']([^"']+)["']/g, /\bimport\s*\(\s*["']([^"']+)["']\s*\)/g];
  for (const re of patterns) for (const m of source.matchAll(re)) out.push(m[1] as string);
  return out.filter((s) => s.startsWith("."));
}

/** file → the files of src it imports (absolute paths). */
function fileGraph(files: readonly string[]): Map<string, Set<string>> {
  const graph = new Map<string, Set<string>>();
  for (const file of files) {
    const to = new Set<string>();
    for (const spec of importSpecifiers(readFileSync(file, "utf8"))) to.add(resolve(dirname(file), spec));
    graph.set(file, to);
  }
  return graph;
}

/** Tarjan's strongly connected components: every group of two or more nodes is a circle. */
function circles(graph: Map<string, Set<string>>): string[][] {
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, counter);
    low.set(v, counter++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!graph.has(w)) continue;
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
      if (group.length > 1) found.push(group.sort());
    }
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return found;
}

const rel = (f: string): string => relative(SRC, f);

describe("the live path is one module", () => {
  test("the circle finder reports a loop among files and nothing else", () => {
    const g = new Map<string, Set<string>>([
      ["executor.ts", new Set(["order-swap.ts", "types.ts"])],
      ["order-swap.ts", new Set(["send-swap.ts"])],
      ["send-swap.ts", new Set(["executor.ts", "types.ts"])],
      ["types.ts", new Set(["outside.ts"])],
    ]);
    expect(circles(g)).toEqual([["executor.ts", "order-swap.ts", "send-swap.ts"]]);
  });

  test("the graph is the real one: the entrance reaches the executor, the executor the inspection", () => {
    const graph = fileGraph(sourceFiles(TRADING));
    expect(graph.get(ENTRANCE)?.has(join(LIVE, "executor.ts"))).toBe(true);
    expect(graph.get(join(LIVE, "prepare-swap.ts"))?.has(join(LIVE, "transaction-inspector.ts"))).toBe(true);
  });

  test("no import circle between the files of src/trading", () => {
    const found = circles(fileGraph(sourceFiles(TRADING)));
    expect(found.map((group) => group.map(rel).join(" ⇄ "))).toEqual([]);
  });

  test("code outside src/trading/live/ imports the live path only through its entrance", () => {
    const reaching = [...fileGraph(sourceFiles(SRC)).entries()]
      .filter(([from]) => !from.startsWith(`${LIVE}/`))
      .flatMap(([from, to]) =>
        [...to].filter((t) => t.startsWith(`${LIVE}/`) && t !== ENTRANCE).map((t) => `${rel(from)} → ${rel(t)}`),
      );
    expect(reaching).toEqual([]);
  });

  test("the entrance places every file of the folder on its stage list and names the gate", () => {
    const entrance = readFileSync(ENTRANCE, "utf8");
    const doc = entrance.slice(0, entrance.indexOf("*/"));
    const unplaced = readdirSync(LIVE)
      .filter((f) => f.endsWith(".ts") && f !== "index.ts")
      .filter((f) => !doc.includes(f));
    expect(unplaced).toEqual([]);
    for (const stage of ["prepare", "inspect", "sign", "send", "judge", "record"]) expect(doc).toContain(stage);
    expect(doc).toContain("THE GATE: inspectSwapTransaction (transaction-inspector.ts)");
  });
});
