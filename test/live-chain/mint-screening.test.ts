import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { ManualClock } from "../../src/clock.ts";
import { MintInfoSource } from "../../src/market/mint-info.ts";
import { TOKEN_2022_PROGRAM_ID, TOKEN_PROGRAM_ID } from "../../src/market/solana-rpc.ts";
import {
  PLAIN_MINT,
  screenToken,
  TOKEN_SCREENING_DEFAULTS,
  type TokenFacts,
} from "../../src/trading/rules/token-screening.ts";
import { type ChainContext, startChain } from "./chain-context.ts";

describe("MintInfoSource reads the mint account over RPC", () => {
  let c: ChainContext;
  let clock: ManualClock;
  let source: MintInfoSource;
  beforeEach(async () => {
    c = await startChain();
    clock = new ManualClock();
    source = new MintInfoSource({ rpc: c.rpc, clock, ttlMs: 60_000 });
  });
  afterEach(() => c.close());

  test("classic Token: decimals, program, authorities, no fee", async () => {
    const pool = c.aggregator.addPool({
      lamportsPerToken: 1_000n,
      decimals: 9,
      freezeAuthority: true,
      keepMintAuthority: true,
    });
    const info = await source.get(pool.mint.toBase58());
    expect(info).toEqual({
      mint: pool.mint.toBase58(),
      decimals: 9,
      tokenProgram: TOKEN_PROGRAM_ID,
      mintAuthority: pool.owner.publicKey.toBase58(),
      freezeAuthority: pool.owner.publicKey.toBase58(),
      transferFeeBps: 0,
      extensions: [],
      nonTransferable: false,
      permanentDelegate: null,
      pauseAuthority: null,
      paused: false,
      transferHookProgram: null,
      transferHookAuthority: null,
      defaultAccountFrozen: false,
      unknownExtensions: [],
    });
  });

  test("Token-2022 transfer fee read from the mint, and the same as the node's jsonParsed view", async () => {
    const pool = c.aggregator.addPool({ lamportsPerToken: 1_000n, decimals: 6, token2022: true, transferFeeBps: 250 });
    const info = await source.get(pool.mint.toBase58());
    expect(info.tokenProgram).toBe(TOKEN_2022_PROGRAM_ID);
    expect(info.transferFeeBps).toBe(250);
    expect(info.extensions).toContain(1);
    expect(info.mintAuthority).toBeNull();
    const parsed = await c.rpc.call<any>("getAccountInfo", [pool.mint.toBase58(), { encoding: "jsonParsed" }]);
    const p = parsed.value.data.parsed.info;
    expect(p.decimals).toBe(info.decimals);
    expect(p.extensions[0].state.newerTransferFee.transferFeeBasisPoints).toBe(250);
    expect(screenToken({ ...info, reverseQuoteFound: true })).toEqual({
      ok: false,
      rule: "maxTransferFeeBps",
      reason:
        "The token's transfer fee (in force or scheduled by its authority) is 250 bps, above the maximum of 100 bps",
    });
  });

  test("cached for the TTL, read again after it", async () => {
    const pool = c.aggregator.addPool({ lamportsPerToken: 1_000n });
    const reads = () => c.chain.calls.filter((x) => x.method === "getAccountInfo").length;
    await source.get(pool.mint.toBase58());
    await source.get(pool.mint.toBase58());
    expect(reads()).toBe(1);
    clock.advance(60_000);
    await source.get(pool.mint.toBase58());
    expect(reads()).toBe(2);
  });

  test("a wallet address or an unknown account is not a mint: TradingError", async () => {
    const err = await source.get(c.wallet.publicKey.toBase58()).catch((e) => e);
    expect(err.code).toBe("TRADING_ERROR");
    expect(err.message).toContain("is not a token mint");
    const none = await source.get("11111111111111111111111111111112").catch((e) => e);
    expect(none.code).toBe("TRADING_ERROR");
  });
});

describe("screenToken", () => {
  const clean: TokenFacts = { ...PLAIN_MINT, reverseQuoteFound: true };
  const cases: Array<[string, Partial<TokenFacts>, Partial<typeof TOKEN_SCREENING_DEFAULTS>, string | null]> = [
    ["clean token", {}, {}, null],
    ["freeze authority (default on)", { freezeAuthority: "F" }, {}, "rejectFreezeAuthority"],
    ["freeze authority allowed", { freezeAuthority: "F" }, { rejectFreezeAuthority: false }, null],
    ["mint authority (default off)", { mintAuthority: "M" }, {}, null],
    ["mint authority rejected", { mintAuthority: "M" }, { rejectMintAuthority: true }, "rejectMintAuthority"],
    ["fee at the cap", { transferFeeBps: 100 }, {}, null],
    ["fee above the cap", { transferFeeBps: 101 }, {}, "maxTransferFeeBps"],
    ["fee above a raised cap", { transferFeeBps: 300 }, { maxTransferFeeBps: 500 }, null],
    ["no reverse quote", { reverseQuoteFound: false }, {}, "requireSellable"],
    ["reverse quote not asked fails closed", { reverseQuoteFound: null }, {}, "requireSellable"],
    ["non-transferable", { nonTransferable: true }, {}, "requireSellable"],
    ["sellability not required", { reverseQuoteFound: false, nonTransferable: true }, { requireSellable: false }, null],
    ["first failing rule wins", { freezeAuthority: "F", transferFeeBps: 9_000 }, {}, "rejectFreezeAuthority"],
    ["permanent delegate (default on)", { permanentDelegate: "D" }, {}, "rejectPermanentDelegate"],
    ["permanent delegate allowed", { permanentDelegate: "D" }, { rejectPermanentDelegate: false }, null],
    ["pause authority (default on)", { pauseAuthority: "P" }, {}, "rejectPausable"],
    ["paused without an authority", { paused: true }, {}, "rejectPausable"],
    ["pause authority allowed", { pauseAuthority: "P" }, { rejectPausable: false }, null],
    ["paused, pausable allowed: not sellable now", { paused: true }, { rejectPausable: false }, "requireSellable"],
    ["transfer hook (default on)", { transferHookProgram: "H" }, {}, "rejectTransferHook"],
    ["transfer hook allowed", { transferHookProgram: "H" }, { rejectTransferHook: false }, null],
    ["transfer hook authority, no program yet (default on)", { transferHookAuthority: "A" }, {}, "rejectTransferHook"],
    ["transfer hook authority allowed", { transferHookAuthority: "A" }, { rejectTransferHook: false }, null],
    ["frozen by default (default on)", { defaultAccountFrozen: true }, {}, "rejectDefaultFrozen"],
    ["frozen by default allowed", { defaultAccountFrozen: true }, { rejectDefaultFrozen: false }, null],
    ["unknown extension (default on)", { unknownExtensions: [99] }, {}, "rejectUnknownExtensions"],
    ["unknown extension allowed", { unknownExtensions: [99] }, { rejectUnknownExtensions: false }, null],
  ];
  test.each(cases)("%s", (_n, facts, filters, rule) => {
    const r = screenToken({ ...clean, ...facts }, { ...TOKEN_SCREENING_DEFAULTS, ...filters });
    if (rule === null) expect(r).toEqual({ ok: true });
    else {
      expect(r.ok).toBe(false);
      if (!r.ok) {
        expect(r.rule).toBe(rule as typeof r.rule);
        expect(r.reason.length).toBeGreaterThan(10);
      }
    }
  });
  test("defaults as issues 15 and 32 name them", () => {
    expect(TOKEN_SCREENING_DEFAULTS).toEqual({
      rejectFreezeAuthority: true,
      rejectMintAuthority: false,
      rejectPermanentDelegate: true,
      rejectPausable: true,
      rejectTransferHook: true,
      rejectDefaultFrozen: true,
      rejectUnknownExtensions: true,
      maxTransferFeeBps: 100,
      requireSellable: true,
    });
  });
  test("a hook program on the allow-list passes rejectTransferHook only when no authority can replace it", () => {
    const facts = { ...clean, transferHookProgram: "H" };
    expect(screenToken(facts, TOKEN_SCREENING_DEFAULTS, ["H"])).toEqual({ ok: true });
    expect(screenToken(facts, TOKEN_SCREENING_DEFAULTS, ["X"]).ok).toBe(false);
    const replaceable = screenToken({ ...facts, transferHookAuthority: "A" }, TOKEN_SCREENING_DEFAULTS, ["H"]);
    expect(replaceable.ok ? null : replaceable.rule).toBe("rejectTransferHook");
  });
});
