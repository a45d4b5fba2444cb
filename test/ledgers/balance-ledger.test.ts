import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import fc from "fast-check";
import { inTransaction } from "../../src/db/client.ts";
import {
  type BalanceKey,
  credit,
  debit,
  InsufficientBalanceError,
  readBalance,
  setBalance,
} from "../../src/ledgers/balance-ledger.ts";
import { SOL_MINT } from "../../src/money.ts";
import { createAgent, simulationWalletOf } from "../agents/fixtures.ts";
import { createTestContext, login, type TestContext } from "../helpers/context.ts";

// The balance ledger the trading engine reuses for its SOL debit / token credit: exact decimal
// arithmetic on agent_balances rows, never below zero, usable inside a synchronous transaction.

let ctx: TestContext;
let agentId: string;
let wallet: string;
const now = "2026-01-01T00:00:00.000Z";

beforeAll(async () => {
  ctx = await createTestContext({ env: { LOG_LEVEL: "warn" } });
  const { token } = await login(ctx);
  agentId = (await createAgent(ctx, token)).id;
  wallet = simulationWalletOf(ctx, agentId);
});
afterAll(() => ctx.close());

const keyFor = (tokenAddress: string): BalanceKey => ({ agentId, walletAddress: wallet, tokenAddress });
const stored = (k: BalanceKey) =>
  ctx.database.sqlite
    .query<{ balance: string; token_symbol: string; decimals: number | null }, [string, string, string]>(
      "SELECT balance, token_symbol, decimals FROM agent_balances WHERE agent_id = ? AND wallet_address = ? AND token_address = ?",
    )
    .get(k.agentId, k.walletAddress, k.tokenAddress);

describe("credit / debit", () => {
  test("credit creates the row, then adds exactly", () => {
    const k = keyFor("MintCredit111");
    expect(readBalance(ctx.database, k).toFixed()).toBe("0");
    expect(credit(ctx.database, k, "0.1", { now, tokenSymbol: "CRD", decimals: 6 }).toFixed()).toBe("0.1");
    expect(credit(ctx.database, k, "0.2", { now }).toFixed()).toBe("0.3"); // not 0.30000000000000004
    expect(stored(k)).toEqual({ balance: "0.3", token_symbol: "CRD", decimals: 6 });
  });

  test("debit refuses to go below zero and writes nothing", () => {
    const k = keyFor(SOL_MINT);
    expect(readBalance(ctx.database, k).toFixed()).toBe("10");
    let err: unknown;
    try {
      debit(ctx.database, k, "10.000000001", { now });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(InsufficientBalanceError);
    expect((err as InsufficientBalanceError).message).toBe("Insufficient SOL balance");
    expect((err as InsufficientBalanceError).details).toEqual({ required: 10.000000001, available: 10 });
    expect((err as InsufficientBalanceError).status).toBe(400);
    expect(stored(k)?.balance).toBe("10");
    expect(debit(ctx.database, k, "10", { now }).toFixed()).toBe("0");
    expect(stored(k)?.balance).toBe("0");
    credit(ctx.database, k, "10", { now });
  });

  test("a token debit without a row is an insufficient token balance", () => {
    expect(() => debit(ctx.database, keyFor("NoSuchMint"), "1", { now })).toThrow("Insufficient token balance");
  });

  test("debiting zero from a token never held is a no-op (found by the property test, seed -1008701020)", () => {
    const k = keyFor("MintNeverHeld");
    expect(debit(ctx.database, k, "0", { now }).toFixed()).toBe("0");
    expect(stored(k)).toBeNull();
    expect(() => debit(ctx.database, k, "0.000000001", { now })).toThrow(InsufficientBalanceError);
  });

  test("negative amounts are programming errors", () => {
    expect(() => credit(ctx.database, keyFor("MintNeg"), "-1", { now })).toThrow(RangeError);
    expect(() => debit(ctx.database, keyFor(SOL_MINT), "-1", { now })).toThrow(RangeError);
  });

  test("setBalance overwrites or creates", () => {
    const k = keyFor("MintSet");
    setBalance(ctx.database, k, "5.5", { now, tokenSymbol: "SET" });
    setBalance(ctx.database, k, "1.25", { now });
    expect(stored(k)?.balance).toBe("1.25");
  });

  test("inside a caller's transaction: a later failure rolls the debit back (SOL debit + token credit)", () => {
    const sol = keyFor(SOL_MINT);
    const tok = keyFor("MintAtomic");
    expect(() =>
      inTransaction(ctx.database, () => {
        debit(ctx.database, sol, "1", { now });
        credit(ctx.database, tok, "1000", { now, tokenSymbol: "ATM" });
        throw new Error("swap failed after the ledger writes");
      }),
    ).toThrow("swap failed");
    expect(stored(sol)?.balance).toBe("10");
    expect(stored(tok)).toBeNull();
    inTransaction(ctx.database, () => {
      debit(ctx.database, sol, "1", { now });
      credit(ctx.database, tok, "1000", { now, tokenSymbol: "ATM" });
    });
    expect(stored(sol)?.balance).toBe("9");
    expect(stored(tok)?.balance).toBe("1000");
  });
});

test("balances stay exact after 10,000 random credit/debit operations (property)", () => {
  // Model: integer nano-units (bigint), independent of big.js. Amounts have up to 9 decimals.
  const ops = fc.array(
    fc.record({
      kind: fc.constantFrom("credit", "debit"),
      token: fc.constantFrom(SOL_MINT, "MintPropA", "MintPropB"),
      nanos: fc.oneof(fc.bigInt({ min: 0n, max: 1_000_000_000n }), fc.bigInt({ min: 0n, max: 50_000_000_000_000n })),
    }),
    { minLength: 10_000, maxLength: 10_000 },
  );
  const text = (n: bigint) => {
    const s = n.toString().padStart(10, "0");
    const whole = s.slice(0, -9).replace(/^0+(?=\d)/, "");
    const frac = s.slice(-9).replace(/0+$/, "");
    return frac ? `${whole}.${frac}` : whole;
  };
  fc.assert(
    fc.property(ops, (list) => {
      const prefix = crypto.randomUUID().slice(0, 8);
      const model = new Map<string, bigint>();
      let refused = 0;
      // One transaction per run, as the trading engine calls the ledger (and 10,000 separate
      // commits would time the test by the disk, not by the ledger).
      inTransaction(ctx.database, () => {
        for (const op of list) {
          const k = keyFor(`${prefix}${op.token}`);
          const have = model.get(k.tokenAddress) ?? 0n;
          if (op.kind === "credit") {
            credit(ctx.database, k, text(op.nanos), { now });
            model.set(k.tokenAddress, have + op.nanos);
          } else if (op.nanos > have) {
            expect(() => debit(ctx.database, k, text(op.nanos), { now })).toThrow(InsufficientBalanceError);
            refused++;
          } else {
            debit(ctx.database, k, text(op.nanos), { now });
            model.set(k.tokenAddress, have - op.nanos);
          }
        }
      });
      for (const [token, nanos] of model) {
        const k = keyFor(token);
        expect(stored(k)?.balance).toBe(text(nanos));
        expect(readBalance(ctx.database, k).toFixed()).toBe(text(nanos));
        expect(nanos >= 0n).toBe(true);
      }
      expect(refused).toBeGreaterThan(0);
    }),
    { numRuns: 2 },
  );
}, 120_000);
