import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type FakeMarket, startFakeMarket } from "../fakes/market.ts";
import { type ChildService, ROOT, startChildService } from "../helpers/child-service.ts";

// README's "First steps with curl", run as printed (bash, curl, jq) against the real service as a
// child process, so the walk-through a new user copies cannot drift from what the service does.
// Only BASE's port is changed (the test cannot count on 3000 being free). Both markets: the demo
// one (DEMO_MARKET=true, started with the environment of README's demo quick-start command) and
// the real one, here the local fake of Jupiter, DexScreener and Hermes (test/fakes/market.ts).

const README = readFileSync(join(ROOT, "README.md"), "utf8");
const BONK = "DezXAZ8z7PnrnRJjz3wXBoRgixCa6xjnB7YaB1pPB263";
const FROG = "DemoFrog11111111111111111111111111111111111";
const PRINTED_BASE = "BASE=http://127.0.0.1:3000/api/v1";

/** The first ```sh block of the "First steps with curl" section. */
function firstStepsBlock(): string {
  const start = README.indexOf("\n## First steps with curl\n");
  const end = README.indexOf("\n## ", start + 1);
  expect(start).toBeGreaterThan(0);
  const block = /```sh\n([\s\S]*?)\n```/.exec(README.slice(start, end));
  expect(block).not.toBeNull();
  return block![1] as string;
}

/** The variables README's demo quick-start command sets before `npm start`. */
function demoQuickStartEnv(): Record<string, string> {
  const line = /^npm install && (DEMO_MARKET=true .*) npm start$/m.exec(README);
  expect(line).not.toBeNull();
  const env: Record<string, string> = {};
  for (const m of (line![1] as string).matchAll(/([A-Z_]+)=('[^']*'|\S+)/g))
    env[m[1] as string] = (m[2] as string).replace(/^'|'$/g, "");
  expect(Object.keys(env).toSorted()).toEqual(["ADMIN_EMAIL", "ADMIN_PASSWORD", "DEMO_MARKET"]);
  return env;
}

interface Position {
  agentId: string;
  tokenAddress: string;
  tokenSymbol: string | null;
}

/** Runs the block with bash; returns its output and the last JSON value it printed (step 5's positions). */
async function runFirstSteps(svc: ChildService): Promise<{ stdout: string; positions: Position[] }> {
  const script = firstStepsBlock();
  expect(script.startsWith(`${PRINTED_BASE}\n`)).toBe(true);
  const proc = Bun.spawn(["bash", "-c", script.replace(PRINTED_BASE, `BASE=${svc.url}/api/v1`)], {
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: process.env.HOME ?? "/tmp" },
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  const timer = setTimeout(() => proc.kill("SIGKILL"), 60_000);
  const [stdout, stderr, code] = await Promise.all([
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
    proc.exited,
  ]);
  clearTimeout(timer);
  const context = `exit ${code}\nstdout:\n${stdout}\nstderr:\n${stderr}\nservice:\n${svc.output()}`;
  expect(code, context).toBe(0);
  expect(stderr, context).toBe("");
  // Step 5 ends with `jq .` of the positions: the last top-level array of the output.
  const at = stdout.lastIndexOf("\n[");
  expect(at, context).toBeGreaterThan(0);
  return { stdout, positions: JSON.parse(stdout.slice(at + 1)) as Position[] };
}

const dirs: string[] = [];
const tempDb = () => {
  const dir = mkdtempSync(join(tmpdir(), "first-steps-"));
  dirs.push(dir);
  return join(dir, "trading.db");
};
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** What a user would have, minus anything that leaves the host. */
const base = () => ({ DATABASE_PATH: tempDb(), LOG_LEVEL: "warn", SOLANA_RPC_URL: "", HISTORY_DATA_URL: "" });

describe("on the demo market (README's demo quick start)", () => {
  let svc: ChildService;
  beforeAll(async () => {
    svc = await startChildService({ ...base(), ...demoQuickStartEnv() }, { readyTimeoutMs: 30_000 });
  });
  afterAll(() => svc?.stop());

  test("step 5 shows the agent's FROG position, and its decision says traded", async () => {
    const { stdout, positions } = await runFirstSteps(svc);
    expect(positions).toHaveLength(1);
    expect(positions[0]).toMatchObject({ tokenAddress: FROG, tokenSymbol: "FROG" });
    expect(stdout).toContain('"outcome":"traded"');
    expect(stdout).not.toContain("not a demo market token");
  });
});

describe("on the real market (a local fake of it)", () => {
  let fake: FakeMarket;
  let svc: ChildService;
  beforeAll(async () => {
    fake = await startFakeMarket();
    fake.setSolPrice(150);
    fake.setToken(BONK, { symbol: "BONK", priceUsd: "0.00002", decimals: 5, liquidityUsd: 5_000_000 });
    const { DEMO_MARKET: _demo, ...credentials } = demoQuickStartEnv();
    svc = await startChildService({ ...base(), ...credentials, ...fake.env() }, { readyTimeoutMs: 30_000 });
  });
  afterAll(async () => {
    await svc?.stop();
    await fake?.stop();
  });

  test("step 5 shows the agent's BONK position, bought through the swap aggregator", async () => {
    const { stdout, positions } = await runFirstSteps(svc);
    expect(positions).toHaveLength(1);
    expect(positions[0]).toMatchObject({ tokenAddress: BONK, tokenSymbol: "BONK" });
    expect(stdout).toContain('"outcome":"traded"');
    expect(fake.requests.some((r) => r.path.includes("/swap/"))).toBe(true);
  });
});
