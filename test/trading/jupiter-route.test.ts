import { describe, expect, test } from "bun:test";
import { decodeJupiterSwap, type JupiterSwap } from "../../src/trading/live/jupiter-route.ts";
import { judgeRoute, type RouteBounds, routeMaximumInput, routeMinimum } from "../../src/trading/live/route-floor.ts";
import { discriminator, routeData } from "../fakes/jupiter-program.ts";

// Jupiter v6 swap instructions read from their bytes (issue 40 item 1): every layout of the IDL,
// Swap variants with payloads, and what makes an instruction unreadable (refused: default deny);
// then the rule that holds the route's on-chain minimum to ours, tightening it where allowed.

const u64 = (v: bigint) => {
  const b = Buffer.alloc(8);
  b.writeBigUInt64LE(v);
  return b;
};
const u16 = (v: number) => {
  const b = Buffer.alloc(2);
  b.writeUInt16LE(v);
  return b;
};
const u32 = (v: number) => {
  const b = Buffer.alloc(4);
  b.writeUInt32LE(v);
  return b;
};
/** One route step: the Swap variant's tag and payload, then percent (v1) or bps (v2) and the indexes. */
const step = (swap: Buffer, share: number, input: number, output: number, v2 = false) =>
  Buffer.concat([swap, v2 ? u16(share) : Buffer.from([share]), Buffer.from([input, output])]);
const plan = (...steps: Buffer[]) => Buffer.concat([u32(steps.length), ...steps]);
const RAYDIUM = Buffer.from([7]);
const v1Tail = (amount: bigint | null, quoted: bigint, slippage: number, fee: number) =>
  Buffer.concat([...(amount === null ? [] : [u64(amount)]), u64(quoted), u16(slippage), Buffer.from([fee])]);
const v2Head = (amount: bigint, quoted: bigint, slippage: number, fee: number, positive: number) =>
  Buffer.concat([u64(amount), u64(quoted), u16(slippage), u16(fee), u16(positive)]);

const decoded = (data: Buffer): JupiterSwap => {
  const d = decodeJupiterSwap(data);
  if ("fault" in d) throw new Error(d.fault);
  return d;
};

describe("every v6 swap layout of the IDL", () => {
  const one = plan(step(RAYDIUM, 100, 0, 1));
  const oneV2 = plan(step(RAYDIUM, 10_000, 0, 1, true));
  const cases: Array<[string, Buffer, Partial<JupiterSwap>]> = [
    ["route", Buffer.concat([one, v1Tail(5n, 100n, 50, 0)]), { kind: "exact_in", amount: 5n, quoted: 100n }],
    [
      "shared_accounts_route",
      Buffer.concat([Buffer.from([3]), one, v1Tail(5n, 100n, 50, 0)]),
      { kind: "exact_in", amount: 5n },
    ],
    ["route_with_token_ledger", Buffer.concat([one, v1Tail(null, 100n, 50, 0)]), { kind: "ledger", amount: null }],
    [
      "shared_accounts_route_with_token_ledger",
      Buffer.concat([Buffer.from([1]), one, v1Tail(null, 100n, 50, 0)]),
      { kind: "ledger" },
    ],
    ["exact_out_route", Buffer.concat([one, v1Tail(7n, 90n, 20, 1)]), { kind: "exact_out", amount: 7n, quoted: 90n }],
    [
      "shared_accounts_exact_out_route",
      Buffer.concat([Buffer.from([0]), one, v1Tail(7n, 90n, 20, 1)]),
      { kind: "exact_out", platformFeeBps: 1 },
    ],
    [
      "route_v2",
      Buffer.concat([v2Head(5n, 100n, 50, 300, 20), oneV2]),
      { kind: "exact_in", platformFeeBps: 300, positiveSlippageBps: 20 },
    ],
    ["shared_accounts_route_v2", Buffer.concat([Buffer.from([2]), v2Head(5n, 100n, 50, 0, 0), oneV2]), {}],
    ["exact_out_route_v2", Buffer.concat([v2Head(7n, 90n, 20, 0, 0), oneV2]), { kind: "exact_out" }],
    ["shared_accounts_exact_out_route_v2", Buffer.concat([Buffer.from([9]), v2Head(7n, 90n, 20, 0, 0), oneV2]), {}],
  ];
  test.each(cases)("%s", (name, args, expected) => {
    const d = decoded(Buffer.concat([discriminator(name), args]));
    expect(d).toMatchObject({ name, ...expected });
    // slippageAt points at slippage_bps, where a tighter one is written.
    const data = Buffer.concat([discriminator(name), args]);
    expect(data.readUInt16LE(d.slippageAt)).toBe(d.slippageBps);
  });

  test("the fake aggregator's route (test/fakes/jupiter-program.ts) reads back as written", () => {
    expect(
      decoded(routeData({ inAmount: 100_000_000n, quotedOutAmount: 99n, slippageBps: 300, platformFeeBps: 0 })),
    ).toMatchObject({ name: "route", amount: 100_000_000n, quoted: 99n, slippageBps: 300, steps: [{ share: 100 }] });
  });

  test("Swap variants with payloads: Whirlpool v2 with remaining accounts, Symmetry, DynamicV1, JupiterRfqV2, a split and a second hop", () => {
    const whirlpoolV2 = Buffer.concat([Buffer.from([47, 1, 1]), u32(2), Buffer.from([0, 3, 1, 4])]); // a_to_b, Some(2 slices)
    const symmetry = Buffer.concat([Buffer.from([29]), u64(1n), u64(2n)]);
    // Two candidates (HumidiFi { swap_id, is_base_to_quote }, TesseraV { side }), best_position Some(5).
    const dynamic = Buffer.concat([
      Buffer.from([111]),
      u32(2),
      Buffer.from([0]),
      u64(5n),
      Buffer.from([1, 1, 0, 1, 5]),
    ]);
    const rfq = Buffer.concat([Buffer.from([120, 1]), u32(3), Buffer.from([9, 9, 9])]);
    const data = Buffer.concat([
      discriminator("route"),
      plan(step(whirlpoolV2, 60, 0, 1), step(symmetry, 40, 0, 1), step(dynamic, 100, 1, 2), step(rfq, 100, 2, 3)),
      v1Tail(10n, 20n, 30, 0),
    ]);
    expect(decoded(data).steps).toEqual([
      { share: 60, input: 0, output: 1 },
      { share: 40, input: 0, output: 1 },
      { share: 100, input: 1, output: 2 },
      { share: 100, input: 2, output: 3 },
    ]);
  });
});

describe("unreadable, refused", () => {
  const fault = (data: Buffer) => {
    const d = decodeJupiterSwap(data);
    return "fault" in d ? d.fault : "";
  };
  const route = (p: Buffer, tail = v1Tail(5n, 100n, 50, 0)) => Buffer.concat([discriminator("route"), p, tail]);
  test.each([
    [
      "a Jupiter instruction that is not a swap (set_token_ledger)",
      discriminator("set_token_ledger"),
      "not one of its swap",
    ],
    ["a Swap variant the table does not know", route(plan(step(Buffer.from([200]), 100, 0, 1))), "does not know"],
    ["a bool that is not 0 or 1", route(plan(step(Buffer.from([8, 2]), 100, 0, 1))), "a flag of 2"],
    ["a byte left over", Buffer.concat([route(plan(step(RAYDIUM, 100, 0, 1))), Buffer.from([0])]), "left over"],
    ["a byte short", route(plan(step(RAYDIUM, 100, 0, 1))).subarray(0, -1), "ends early"],
    ["an empty route plan", route(plan()), "empty route plan"],
    [
      "percents of one input summing to 90",
      route(plan(step(RAYDIUM, 60, 0, 1), step(RAYDIUM, 30, 0, 1))),
      "share 90 of 100",
    ],
    ["percents summing to 110", route(plan(step(RAYDIUM, 60, 0, 1), step(RAYDIUM, 50, 0, 1))), "share 110 of 100"],
    ["a step with a share of 0", route(plan(step(RAYDIUM, 0, 0, 1), step(RAYDIUM, 100, 0, 1))), "share of 0"],
    [
      "a step from a token nothing produced",
      route(plan(step(RAYDIUM, 100, 0, 1), step(RAYDIUM, 100, 2, 3))),
      "from token index 2",
    ],
    ["a step into its own input", route(plan(step(RAYDIUM, 100, 0, 0))), "from token index 0"],
    [
      "a route whose output is swapped again",
      route(plan(step(RAYDIUM, 100, 0, 1), step(RAYDIUM, 100, 1, 0))),
      "swapped again",
    ],
    ["a vector longer than the data", route(Buffer.concat([u32(1_000_000), step(RAYDIUM, 100, 0, 1)])), "a vector of"],
  ])("%s", (_name, data, text) => {
    expect(fault(data)).toContain(text);
  });
});

describe("the route's minimum held to ours", () => {
  const swap = (over: Partial<JupiterSwap> = {}): JupiterSwap => ({
    name: "route",
    kind: "exact_in",
    amount: 100_000_000n,
    quoted: 100_000_000n,
    slippageBps: 300,
    platformFeeBps: 0,
    positiveSlippageBps: 0,
    steps: [{ share: 100, input: 0, output: 1 }],
    slippageAt: 0,
    ...over,
  });
  const bounds = (over: Partial<RouteBounds> = {}): RouteBounds => ({
    inAmount: 100_000_000n,
    minOut: 97_000_000n,
    maxPlatformFeeBps: 0,
    raise: false,
    ...over,
  });

  test("an honest route at the floor holds; its slippage kept", () => {
    expect(judgeRoute(swap(), bounds())).toEqual({ ok: true, slippageBps: 300 });
  });

  test("slippage_bps 10 000 (a minimum of nothing): refused where the bytes are not ours, tightened to the largest that holds ours where they are", () => {
    const wide = swap({ slippageBps: 10_000 });
    expect(judgeRoute(wide, bounds())).toMatchObject({ ok: false, check: "route" });
    expect(judgeRoute(wide, bounds({ raise: true }))).toEqual({ ok: true, slippageBps: 300 });
    // An awkward quote: the largest slippage whose minimum is still ≥ ours, exactly.
    const odd = swap({ quoted: 99_999_999n, slippageBps: 10_000 });
    const v = judgeRoute(odd, bounds({ raise: true }));
    if (!v.ok) throw new Error(v.reason);
    expect(routeMinimum(odd.quoted, v.slippageBps, 0)).toBeGreaterThanOrEqual(97_000_000n);
    expect(routeMinimum(odd.quoted, v.slippageBps + 1, 0)).toBeLessThan(97_000_000n);
  });

  test("a quoted amount below ours cannot be mended by slippage: refused", () => {
    expect(judgeRoute(swap({ quoted: 96_000_000n }), bounds({ raise: true }))).toMatchObject({
      ok: false,
      check: "route",
    });
  });

  test("another input than ours, a platform fee not accepted, a token ledger: refused", () => {
    expect(judgeRoute(swap({ amount: 100_000_001n }), bounds({ raise: true }))).toMatchObject({ check: "tokens" });
    expect(judgeRoute(swap({ platformFeeBps: 1 }), bounds({ raise: true }))).toMatchObject({ check: "fee" });
    expect(judgeRoute(swap({ kind: "ledger", amount: null }), bounds({ raise: true }))).toMatchObject({
      check: "route",
    });
  });

  test("an accepted platform fee counts against the minimum", () => {
    const fee = swap({ slippageBps: 0, platformFeeBps: 100, quoted: 98_000_000n });
    expect(judgeRoute(fee, bounds({ maxPlatformFeeBps: 100 }))).toMatchObject({ ok: true });
    expect(judgeRoute(fee, bounds({ maxPlatformFeeBps: 100, minOut: 97_020_001n }))).toMatchObject({ ok: false });
  });

  test("exact out: its output at least ours, its most input at most ours (tightened where allowed)", () => {
    const out = swap({ kind: "exact_out", amount: 97_000_000n, quoted: 99_000_000n, slippageBps: 500 });
    expect(routeMaximumInput(99_000_000n, 500, 0)).toBe(103_950_000n);
    expect(judgeRoute(out, bounds())).toMatchObject({ ok: false, check: "route" });
    const v = judgeRoute(out, bounds({ raise: true }));
    expect(v).toEqual({ ok: true, slippageBps: 101 });
    expect(judgeRoute(swap({ kind: "exact_out", amount: 96_999_999n }), bounds({ raise: true }))).toMatchObject({
      ok: false,
    });
  });
});
