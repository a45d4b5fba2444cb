import { afterAll, beforeAll, expect, test } from "bun:test";
import fc from "fast-check";
import { DEFAULT_TRADING_CONFIG, deepMerge, type TradingConfig } from "../../src/agents/trading-config.ts";
import { createTestContext, json, login, type TestContext } from "../helpers/context.ts";
import { createAgent } from "./fixtures.ts";

// Property (issue 3 acceptance): any sequence of partial configuration updates, followed by GET,
// returns a complete configuration equal to the defaults deep-merged with the updates the
// service accepted; an invalid update answers 400 and changes nothing. The oracle below is
// written independently of the service's zod schema: every leaf comes from a range the spec or
// PRODUCT.md allows, and an update is invalid only when it carries an injected bad value or
// breaks one of the three cross-field rules.

let ctx: TestContext;
let token: string;
beforeAll(async () => {
  ctx = await createTestContext({ env: { LOG_LEVEL: "warn" } });
  token = (await login(ctx)).token;
});
afterAll(() => ctx.close());

const pos = (max: number) => fc.double({ min: 0.01, max, noNaN: true, noDefaultInfinity: true });
const nonNeg = (max: number) => fc.double({ min: 0, max, noNaN: true, noDefaultInfinity: true }).map((v) => v + 0); // no -0
const nullable = <T>(a: fc.Arbitrary<T>) => fc.option(a, { nil: null });
const tokens = fc.array(fc.stringMatching(/^[1-9A-HJ-NP-Za-km-z]{3,44}$/), { maxLength: 4 });
const partial = <T extends Record<string, fc.Arbitrary<unknown>>>(shape: T) => fc.record(shape, { requiredKeys: [] });

const validPatch = partial({
  positionSizing: partial({
    type: fc.constantFrom("percentage", "fixed"),
    percentage: pos(100),
    fixedAmountSol: nullable(pos(1000)),
  }),
  stopLoss: partial({ enabled: fc.boolean(), percentage: fc.double({ min: 1, max: 100, noNaN: true }) }),
  takeProfit: partial({
    enabled: fc.boolean(),
    percentage: pos(10_000),
    sellPercentage: pos(100),
    maxLevels: fc.integer({ min: 1, max: 100 }),
  }),
  dca: partial({
    enabled: fc.boolean(),
    maxOrders: fc.integer({ min: 1, max: 100 }),
    priceDropTriggerPercentage: fc.double({ min: 0.01, max: 99.99, noNaN: true }),
    amountPercentage: pos(1000),
  }),
  filters: partial({
    minMarketCap: nullable(nonNeg(1e15)),
    maxMarketCap: nullable(nonNeg(1e15)),
    minLiquidity: nullable(nonNeg(1e15)),
    maxPositionAgeDays: nullable(pos(3650)),
    allowedTokens: tokens,
    blockedTokens: tokens,
    minSignalStrength: fc.integer({ min: 1, max: 5 }),
  }),
  slippage: partial({ defaultBps: fc.integer({ min: 1, max: 10_000 }), maxBps: fc.integer({ min: 1, max: 10_000 }) }),
  timing: partial({ minTimeBetweenTradesSeconds: fc.integer({ min: 0, max: 31_536_000 }) }),
  minimumAgentBalance: nonNeg(1_000_000),
});

/** Values no configuration may hold: [group or null for top level, key, value]. */
const badLeaf = fc.constantFrom<[string | null, string, unknown]>(
  ["stopLoss", "percentage", 0],
  ["stopLoss", "percentage", 100.5],
  ["stopLoss", "enabled", "true"],
  ["positionSizing", "type", "kelly"],
  ["positionSizing", "percentage", -5],
  ["takeProfit", "maxLevels", 0],
  ["dca", "maxOrders", 1.5],
  ["dca", "priceDropTriggerPercentage", 100],
  ["filters", "minSignalStrength", 0],
  ["filters", "allowedTokens", [1, 2]],
  ["filters", "unknownFilter", true],
  ["slippage", "maxBps", 20_000],
  ["timing", "minTimeBetweenTradesSeconds", -1],
  [null, "minimumAgentBalance", "0.5"],
  [null, "surprise", {}],
);

type Patch = Record<string, unknown>;
const step = fc.oneof(
  { weight: 4, arbitrary: validPatch.map((p) => ({ patch: p as Patch, injected: false })) },
  {
    weight: 1,
    arbitrary: fc.tuple(validPatch, badLeaf).map(([p, [group, key, value]]) => {
      const patch = structuredClone(p) as Patch;
      if (group === null) patch[key] = value;
      else patch[group] = { ...((patch[group] as Patch | undefined) ?? {}), [key]: value };
      return { patch, injected: true };
    }),
  },
);

function crossFieldOk(c: TradingConfig): boolean {
  if (c.positionSizing.type === "fixed" && c.positionSizing.fixedAmountSol === null) return false;
  if (c.slippage.defaultBps > c.slippage.maxBps) return false;
  const { minMarketCap: lo, maxMarketCap: hi } = c.filters;
  return lo === null || hi === null || lo <= hi;
}

test("random partial updates then GET equal the defaults deep-merged with the accepted updates", async () => {
  const agent = await createAgent(ctx, token);
  const path = `/api/v1/agents/${agent.id}/config`;
  let accepted = 0;
  let refused = 0;
  await fc.assert(
    fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 8 }), async (steps) => {
      // Each run starts from the defaults, through the reset form of the endpoint.
      const reset = await ctx.request("PUT", path, { token, body: { config: null } });
      expect(reset.status).toBe(200);
      let model = structuredClone(DEFAULT_TRADING_CONFIG) as TradingConfig;
      for (const { patch, injected } of steps) {
        const candidate = deepMerge(model as TradingConfig & Record<string, unknown>, patch);
        const shouldAccept = !injected && crossFieldOk(candidate);
        const res = await ctx.request("PUT", path, { token, body: { config: patch } });
        const body = await json(res);
        if (shouldAccept) {
          expect(res.status).toBe(200);
          model = candidate;
          expect(body.config).toEqual(model);
          accepted++;
        } else {
          expect(res.status).toBe(400);
          expect(body.error).toBe("Invalid trading configuration");
          expect(body.details.length).toBeGreaterThan(0);
          for (const d of body.details) expect(typeof d).toBe("string");
          refused++;
        }
        const got = await json(await ctx.request("GET", path, { token }));
        expect(got.config).toEqual(model);
      }
    }),
    { numRuns: 150 },
  );
  // Both branches were really exercised.
  expect(accepted).toBeGreaterThan(50);
  expect(refused).toBeGreaterThan(20);
});
