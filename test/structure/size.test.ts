import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import ts from "typescript";

// Small pieces (docs/decisions.md "One request path"): no file in src/ over 400 lines and no
// function over 120, measured with the TypeScript parser (every function, method, arrow and
// constructor, nested ones included). A piece that is still larger is listed here by name with
// the reason, and the list may only shrink.

const MAX_FILE_LINES = 400;
const MAX_FUNCTION_LINES = 120;

/** Known exceptions, each to be split (the reason says why it is not yet). */
const TOO_LONG: Record<string, string> = {};

const root = join(import.meta.dir, "../..");
const files = [...new Bun.Glob("src/**/*.{ts,tsx}").scanSync({ cwd: root })].sort();

function functionsOf(file: string, text: string): Array<{ name: string; lines: number }> {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const out: Array<{ name: string; lines: number }> = [];
  const visit = (node: ts.Node) => {
    if (ts.isFunctionLike(node) && "body" in node && node.body) {
      const start = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
      const end = source.getLineAndCharacterOfPosition(node.getEnd()).line;
      out.push({ name: nameOf(node), lines: end - start + 1 });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return out;
}

function nameOf(node: ts.Node): string {
  const named = node as { name?: ts.Node };
  if (named.name && ts.isIdentifier(named.name)) return named.name.text;
  const parent = node.parent;
  if (parent && ts.isVariableDeclaration(parent) && ts.isIdentifier(parent.name)) return parent.name.text;
  if (parent && ts.isPropertyAssignment(parent) && ts.isIdentifier(parent.name)) return parent.name.text;
  return "(anonymous)";
}

test(`no file in src/ over ${MAX_FILE_LINES} lines`, () => {
  const over = files
    .map((f) => ({ f, lines: readFileSync(join(root, f), "utf8").split("\n").length }))
    .filter(({ f, lines }) => lines > MAX_FILE_LINES && !TOO_LONG[f])
    .map(({ f, lines }) => `${f}: ${lines} lines`);
  expect(over).toEqual([]);
});

test(`no function in src/ over ${MAX_FUNCTION_LINES} lines`, () => {
  const over: string[] = [];
  for (const f of files) {
    for (const fn of functionsOf(f, readFileSync(join(root, f), "utf8")))
      if (fn.lines > MAX_FUNCTION_LINES && !TOO_LONG[`${f} ${fn.name}`])
        over.push(`${f} ${fn.name}: ${fn.lines} lines`);
  }
  expect(over).toEqual([]);
});

test("the exceptions are still needed (the list only shrinks)", () => {
  const stale = Object.keys(TOO_LONG).filter((key) => {
    const [file, fn] = key.split(" ") as [string, string | undefined];
    const text = readFileSync(join(root, file), "utf8");
    if (!fn) return text.split("\n").length <= MAX_FILE_LINES;
    return !functionsOf(file, text).some((f) => f.name === fn && f.lines > MAX_FUNCTION_LINES);
  });
  expect(stale).toEqual([]);
});
