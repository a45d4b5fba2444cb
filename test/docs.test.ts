import { expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { configSchema } from "../src/config.ts";

// README's configuration table and .env.example must name every variable the service reads.
const root = join(import.meta.dir, "..");
const readme = readFileSync(join(root, "README.md"), "utf8");
const envExample = readFileSync(join(root, ".env.example"), "utf8");

test.each(Object.keys(configSchema.shape))("%s is documented in README.md and .env.example", (name) => {
  expect(readme).toContain(`\`${name}\``);
  expect(envExample).toMatch(new RegExp(`^#? ?${name}=`, "m"));
});

test("README carries the two newcomer commands", () => {
  expect(readme).toContain("npm install && ");
  expect(readme).toContain("npm start");
  expect(readme).toContain("npm test");
});

test("README's strategy example is a valid configuration and says what it sets", async () => {
  const { applyConfigUpdate } = await import("../src/agents/trading-config.ts");
  const block = /-d '(\{"config": \{[\s\S]*?\}\})'/.exec(readme);
  expect(block).not.toBeNull();
  const body = JSON.parse(block![1]!) as { config: Record<string, unknown> };
  const result = applyConfigUpdate(null, body.config);
  if (!result.ok) throw new Error(result.details.join("; "));
  expect(result.config.positionSizing).toEqual({ type: "fixed", percentage: 5, fixedAmountSol: 0.25 });
  expect(result.config.stopLoss.percentage).toBe(20);
  expect(result.config.filters.minLiquidity).toBe(50000);
});

test("every relative link in README and docs/*.md leads to a file", () => {
  const docs = readdirSync(join(root, "docs")).filter((f) => f.endsWith(".md"));
  const files = ["README.md", ...docs.map((f) => `docs/${f}`)];
  const broken: string[] = [];
  for (const file of files) {
    const text = readFileSync(join(root, file), "utf8");
    for (const m of text.matchAll(/\]\(([^)\s#]+)(#[^)]*)?\)/g)) {
      const target = m[1] as string;
      if (/^[a-z]+:/.test(target)) continue;
      if (!existsSync(join(root, dirname(file), target))) broken.push(`${file}: ${target}`);
    }
  }
  expect(broken).toEqual([]);
});

test("README links the documents moved out of it, and the benchmark table has its markers once", () => {
  for (const doc of ["docs/live-trading.md", "docs/performance.md", "docs/architecture.md", "docs/backups.md"])
    expect(readme).toContain(`](${doc})`);
  const performance = readFileSync(join(root, "docs", "performance.md"), "utf8");
  expect(performance.split("<!-- bench:start -->")).toHaveLength(2);
  expect(performance.split("<!-- bench:end -->")).toHaveLength(2);
  expect(readme).not.toContain("<!-- bench:start -->");
});

test("README's first 30 lines say what it is, the demo command and the test command; the real-market command follows (issue 44 item 6)", () => {
  const lines = readme.split("\n");
  const first = lines.slice(0, 30).join("\n");
  expect(first).toContain("Solana");
  const demo = lines.findIndex((l) => /^npm install && DEMO_MARKET=true .* npm start$/.test(l));
  const tests = lines.indexOf("npm test");
  const real = lines.findIndex((l) => /^npm install && ADMIN_EMAIL=.* npm start$/.test(l));
  expect(demo).toBeGreaterThan(-1);
  expect(demo).toBeLessThan(30);
  expect(tests).toBeGreaterThan(demo);
  expect(tests).toBeLessThan(30);
  expect(real).toBeGreaterThan(tests);
});

test("README's command list names every command the CLI has, and Idempotency-Key is documented", async () => {
  const proc = Bun.spawnSync([process.execPath, join(root, "src/main.ts"), "help"], {
    env: { PATH: process.env.PATH ?? "" },
  });
  const help = proc.stdout.toString();
  const block = help.slice(help.indexOf("Commands:"), help.indexOf("Options:"));
  const names = [...block.matchAll(/^ {2}([a-z][a-z0-9-]*(?: create)?)/gm)].map((m) => m[1] as string);
  expect(names.length).toBeGreaterThan(5);
  const listed = readme.slice(readme.indexOf("## Command line"));
  for (const name of names.filter((n) => n !== "help")) expect(listed).toContain(`trading-agent ${name}`);
  expect(readme).toContain("Idempotency-Key");
});

test("README's contents line names every section after the quick start, in order, with working anchors", () => {
  const headings = [...readme.matchAll(/^## (.+)$/gm)].map((m) => m[1] as string).slice(1);
  const anchor = (h: string) =>
    h
      .toLowerCase()
      .replace(/[^a-z0-9 -]/g, "")
      .replaceAll(" ", "-");
  const line = /^Contents: (.+)\.$/m.exec(readme)?.[1] ?? "";
  expect(line).toBe(headings.map((h) => `[${h}](#${anchor(h)})`).join(" · "));
});

const records = readdirSync(join(root, "docs", "decisions")).filter((f) => f.endsWith(".md"));

test("docs/decisions.md links every decision record, and every link leads to one", () => {
  const index = readFileSync(join(root, "docs", "decisions.md"), "utf8");
  const linked = [...index.matchAll(/\]\(decisions\/([^)]+\.md)\)/g)].map((m) => m[1]);
  expect([...linked].sort()).toEqual([...records].sort());
});

test("no merge conflict markers are left in the documentation", () => {
  const files = [
    "README.md",
    "docs/decisions.md",
    "docs/live-trading.md",
    "docs/performance.md",
    "docs/architecture.md",
    ...records.map((f) => `docs/decisions/${f}`),
    "test/fakes/README.md",
    ".env.example",
  ];
  for (const file of files) {
    const text = readFileSync(join(root, file), "utf8");
    const marker = /^(<{7} |={7}$|>{7} )/m.exec(text);
    expect(marker ? `${file}: ${marker[0]}` : null).toBeNull();
  }
});
