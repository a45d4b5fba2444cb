import { afterAll, beforeAll, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ADMIN_EMAIL, createTestContext, createUser, json, login, type TestContext } from "../helpers/context.ts";
import { childEnv, run, SOURCE_CLI } from "./process-helpers.ts";

// `trading-agent backtest` (issue 17 item 6): the same run as POST /backtests over the user's
// signals in DATABASE_PATH: a comparison table on stdout and the trades CSV, equal to the API's.

const T = Date.parse("2025-12-20T10:00:00.000Z");
const MIN = 60_000;
const A = "DezXAZ8z7PnrnRJjz3wXBoRgixCa6xjnB7YaB1pPB263";
const B = "EKpQGSJtjMFqKZ9KQanSqYXRcF8fBopzLHYxdM65zcjm";
const HEADER = "id,createdAt,tokenAddress,symbol,signalType,signalStrength,activationReason,source\r\n";
const VARIANTS = [
  { name: "tight", config: { positionSizing: { type: "fixed", fixedAmountSol: 1 }, stopLoss: { percentage: 10 } } },
  { name: "loose", config: { positionSizing: { type: "fixed", fixedAmountSol: 1 }, stopLoss: { percentage: 40 } } },
];

let ctx: TestContext;
let token: string;
beforeAll(async () => {
  ctx = await createTestContext();
  token = (await login(ctx)).token;
  const bars = (tokenAddress: string, closes: string[]) =>
    ctx.services.strategyLab.bars.recordTicks(closes.map((price, i) => ({ tokenAddress, time: T + i * MIN, price })));
  bars(A, ["0.001", "0.002", "0.0016", "0.0015", "0.003", "0.0011"]);
  bars(B, ["0.01", "0.0095", "0.0085", "0.007", "0.012"]);
  const csv = `${HEADER},${new Date(T).toISOString()},${A},A,buy,4,,alpha\r\n,${new Date(T).toISOString()},${B},B,buy,4,,alpha\r\n,${new Date(T).toISOString()},${B},B,buy,4,,beta\r\n`;
  const res = await ctx.request("POST", "/api/v1/trading-signals/import", {
    token,
    rawBody: csv,
    headers: { "content-type": "text/csv" },
  });
  expect(res.status).toBe(201);
  writeFileSync(join(ctx.dir, "variants.json"), JSON.stringify(VARIANTS));
});
afterAll(() => ctx.close());

const cli = (args: string[]) =>
  run([...SOURCE_CLI, "backtest", ...args], {
    cwd: ctx.dir,
    env: childEnv({ DATABASE_PATH: ctx.config.DATABASE_PATH }),
  });

test("prints the comparison and writes the trades CSV, equal to the API's backtest", async () => {
  const r = await cli(["--config", "variants.json", "--source", "alpha", "--from", "2025-12-20", "--out", "t.csv"]);
  expect(r.stderr).toBe(
    "note: SWAP_AGGREGATOR_URL is not set; token decimals assumed to be 6\n" +
      `2 signals replayed; 4 trades written to ${join(ctx.dir, "t.csv")}\n`,
  );
  expect(r.code).toBe(0);
  const lines = r.stdout.trimEnd().split("\n");
  expect(lines[0]).toMatch(/^variant\s+trades\s+win rate\s+P\/L SOL\s+return %\s+max DD %/);
  expect(lines.map((l) => l.split(/\s+/)[0])).toEqual(["variant", "-------", "tight", "loose"]);

  // The same request through the API and its worker.
  const created = await ctx.request("POST", "/api/v1/backtests", {
    token,
    body: { name: "api", initialSol: 10, signals: { source: "alpha", startDate: "2025-12-20" }, variants: VARIANTS },
  });
  const { id } = await json(created);
  await ctx.services.strategyLab.worker.tick();
  const api = await json(await ctx.request("GET", `/api/v1/backtests/${id}`, { token }));
  for (const [i, v] of api.variants.entries()) {
    const cells = lines[2 + i]!.split(/\s+/);
    expect(cells[1]).toBe(String(v.trades));
    expect(cells[3]).toBe(v.profitLossSol);
    // Exact to the lamport, no float residue.
    expect(cells[3]).toMatch(/^-?\d+(\.\d{1,9})?$/);
  }
  const apiCsv = await (await ctx.request("GET", `/api/v1/backtests/${id}/trades?format=csv`, { token })).text();
  expect(readFileSync(join(ctx.dir, "t.csv"), "utf8")).toBe(apiCsv);
  expect(apiCsv.trim().split("\r\n")).toHaveLength(5);
});

test("another user's signals are not theirs to replay; usage errors exit 2", async () => {
  const other = await createUser(ctx);
  const r = await cli(["--config", "variants.json", "--email", other.email, "--out", "o.csv"]);
  expect(r.code).toBe(0);
  expect(r.stderr).toStartWith("0 signals replayed; 0 trades");
  expect((await cli(["--config", "variants.json", "--email", "nobody@example.com"])).stderr).toBe(
    "error: no user with email nobody@example.com\n",
  );
  writeFileSync(join(ctx.dir, "bad.json"), JSON.stringify([{ name: "x", config: { stopLoss: { percentage: 0 } } }]));
  const cases: Array<[string[], string]> = [
    [[], "error: --config is required"],
    [["--config", "missing.json"], "error: cannot read --config missing.json: ENOENT"],
    [["--config", "variants.json", "--from", "yesterday"], "error: --from must be an ISO 8601 date"],
    [
      ["--config", "bad.json"],
      "error: --config bad.json: Invalid trading configuration: variants.0.config: stopLoss.percentage",
    ],
  ];
  for (const [args, message] of cases) {
    const res = await cli(args);
    expect(res.code, args.join(" ")).toBe(2);
    expect(res.stderr, args.join(" ")).toStartWith(message);
  }
  expect(ADMIN_EMAIL).toBe(ctx.config.ADMIN_EMAIL!);
});
