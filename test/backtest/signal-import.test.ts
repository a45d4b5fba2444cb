import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { MAX_IMPORT_BODY_BYTES } from "../../src/app.ts";
import { csvLine } from "../../src/http/csv.ts";
import { CsvSyntaxError, parseCsv, uncell } from "../../src/http/csv-parse.ts";
import { FakeGeckoTerminal } from "../fakes/geckoterminal.ts";
import { createUser, json } from "../helpers/context.ts";
import { MINT, MINT2, startTrading, type TradingContext } from "../helpers/trading.ts";

// POST /api/v1/trading-signals/import (issue 17 item 3): the export's CSV back in, createdAt
// kept, every row validated (row numbers in the 400), stored processed so that no agent trades
// on it, duplicates skipped, and a history import queued for tokens older than their bars.

const HEADER = "id,createdAt,tokenAddress,symbol,signalType,signalStrength,activationReason,source\r\n";
const POOL = "3ne4mWqdYuNiYrYZC9TrA3FcfuFdErghH97vNPbjicr1";
const NOW = Date.parse("2026-01-01T00:00:00.000Z"); // the ManualClock's start
const DAY = 86_400_000;

let t: TradingContext;
let gecko: FakeGeckoTerminal;
beforeEach(async () => {
  gecko = await new FakeGeckoTerminal().start();
  t = await startTrading(gecko.contextOptions());
});
afterEach(async () => {
  await t.close();
  await gecko.stop();
});

const importCsv = (csv: string, token = t.token, type = "text/csv") =>
  t.ctx.request("POST", "/api/v1/trading-signals/import", { token, rawBody: csv, headers: { "content-type": type } });

describe("CSV reading (RFC 4180)", () => {
  test("reads back what the export writes, formula guard undone", () => {
    const cells = ["=1+1", "-x", "+y", "@z", 'say "hi", then\r\nleave', "-0.25", "", "plain"];
    const text = `\ufeff${csvLine(cells)}${csvLine(["a", "b"])}\n\n`;
    const [first, second] = parseCsv(text);
    expect(first!.map(uncell)).toEqual(cells);
    expect(second).toEqual(["a", "b"]);
    expect(parseCsv("a,b\nc,d")).toEqual([
      ["a", "b"],
      ["c", "d"],
    ]);
  });

  test.each([
    ['a,"b\r\n', 1, "unterminated quoted field"],
    ['a,b\r\n"x"y,z', 2, "text after a closing quote"],
    ['a,b\r\nx,y"z', 2, "a quote inside an unquoted field"],
  ])("%j is refused at record %d", (text, record, message) => {
    try {
      parseCsv(text);
      throw new Error("parsed");
    } catch (err) {
      expect(err).toBeInstanceOf(CsvSyntaxError);
      expect((err as CsvSyntaxError).record).toBe(record);
      expect((err as Error).message).toBe(message);
    }
  });
});

describe("POST /trading-signals/import", () => {
  test("an exported file imports into another account with createdAt kept, and never trades", async () => {
    const { ctx } = t;
    const agent = await t.createAgent(); // automated: trades on every posted signal
    const before = t.solBalance(agent.id);
    // Signals posted the normal way, then exported (the export is the import's format).
    ctx.clock.set(NOW - 3 * DAY);
    await t.postSignal({ source: "alpha", activationReason: '=HYPERLINK("x")', symbol: "BONK" });
    await t.settle();
    ctx.clock.set(NOW);
    const exported = await (await ctx.request("GET", "/api/v1/trading-signals/export", { token: t.token })).text();
    expect(exported).toContain("'=HYPERLINK");

    const other = await createUser(ctx);
    const res = await importCsv(exported, other.token);
    expect(res.status).toBe(201);
    expect(await json(res)).toEqual({ imported: 1, duplicates: 0, historyQueued: 1 });
    const list = await json(await ctx.request("GET", "/api/v1/trading-signals", { token: other.token }));
    expect(list).toHaveLength(1);
    expect(list[0]).toMatchObject({
      createdAt: new Date(NOW - 3 * DAY).toISOString(),
      tokenAddress: MINT,
      symbol: "BONK",
      signalType: "buy",
      signalStrength: 4,
      activationReason: '=HYPERLINK("x")',
      source: "alpha",
    });
    // Importing the same file again adds nothing.
    expect(await json(await importCsv(exported, other.token))).toEqual({
      imported: 0,
      duplicates: 1,
      historyQueued: 0,
    });

    // The owner imports recent signals (young enough for start-up recovery to resume them if
    // they were pending): neither the queue nor recovery hands them to the automated agent.
    const positionsBefore = (await t.positions(agent.id)).length;
    const recent = `${HEADER}7,${new Date(NOW - 60_000).toISOString()},${MINT2},WIF,buy,5,,alpha\r\n`;
    expect((await importCsv(recent)).status).toBe(201);
    await t.settle();
    expect(ctx.services.signalIntake.recover(ctx.services.signals).resume).toEqual([]);
    await t.settle();
    expect((await t.positions(agent.id)).length).toBe(positionsBefore);
    const decisions = ctx.database.sqlite
      .query<{ n: number }, []>(
        "SELECT count(*) AS n FROM signal_evaluations e JOIN trading_signals s ON s.id = e.signal_id WHERE s.api_key_id IS NULL",
      )
      .get()!.n;
    expect(decisions).toBe(0);
    // The control: the posted signal did trade, so the agent was able to.
    expect(t.solBalance(agent.id)).not.toBe(before);
  });

  test("JSON body {csv}, a higher body limit than 64 KiB, and 10,000 rows at most", async () => {
    const row = (i: number) =>
      `,${new Date(NOW - DAY - i * 1000).toISOString()},${MINT},BONK,buy,3,${"r".repeat(40)},bulk\r\n`;
    const big = HEADER + Array.from({ length: 10_000 }, (_, i) => row(i)).join("");
    expect(big.length).toBeGreaterThan(64 * 1024);
    const ok = await t.ctx.request("POST", "/api/v1/trading-signals/import", { token: t.token, body: { csv: big } });
    expect(ok.status).toBe(201);
    expect((await json(ok)).imported).toBe(10_000);
    const tooMany = await importCsv(`${big}${row(10_000)}`);
    expect(tooMany.status).toBe(400);
    expect((await json(tooMany)).error).toBe("At most 10000 rows per import");
    const huge = await importCsv(HEADER + "x".repeat(MAX_IMPORT_BODY_BYTES));
    expect(huge.status).toBe(413);
    // Every other route keeps the 64 KiB limit.
    const post = await t.ctx.request("POST", "/api/v1/agents", {
      token: t.token,
      body: { name: "x".repeat(70 * 1024), tradingMode: "simulation" },
    });
    expect(post.status).toBe(413);
  });

  test("bad rows are listed by row number and nothing is stored", async () => {
    const csv =
      HEADER +
      `1,2025-12-01T10:00:00Z,${MINT},BONK,buy,4,,a\r\n` +
      `2,2025-02-30T10:00:00Z,${MINT},BONK,buy,4,,a\r\n` +
      `3,2025-12-01T10:00:00Z,BONK,BONK,buy,6,,a\r\n` +
      `4,2026-02-01T00:00:00Z,${MINT},BONK,,4,,a\r\n` +
      `5,2025-12-01T10:00:00Z,${MINT},BONK,buy,4.5\r\n`;
    const res = await importCsv(csv);
    expect(res.status).toBe(400);
    expect(await json(res)).toEqual({
      success: false,
      error: "4 of 5 rows are invalid; nothing was imported",
      code: "VALIDATION_ERROR",
      details: [
        "row 3: createdAt must be an ISO 8601 date",
        "row 4: tokenAddress: Token address must be a base58 Solana address (32 bytes)",
        "row 4: signalStrength: Signal strength must be between 1 and 5",
        "row 5: createdAt must not be in the future",
        "row 5: signalType: Signal type is required",
        "row 6: has 6 fields, the header has 8",
        "row 6: signalStrength: Signal strength must be between 1 and 5",
      ],
    });
    expect(await json(await t.ctx.request("GET", "/api/v1/trading-signals", { token: t.token }))).toEqual([]);

    const cases: Array<[string, string, string]> = [
      ["", "text/csv", "The CSV is empty: a header row is required"],
      [HEADER, "text/csv", "The CSV has no rows"],
      [
        "createdAt,tokenAddress,strength\r\n",
        "text/csv",
        "The header must name the export's columns: id, createdAt, tokenAddress, symbol, signalType, signalStrength, activationReason, source",
      ],
      [`${HEADER}1,"2025-12-01`, "text/csv", "row 2: unterminated quoted field"],
      ["{}", "application/json", "csv is required (the CSV text)"],
      ["{", "application/json", "Malformed JSON in request body"],
      ["a", "application/xml", "Content-Type must be text/csv or application/json"],
    ];
    for (const [body, type, error] of cases) {
      const r = await importCsv(body, t.token, type);
      expect(r.status, body).toBe(400);
      expect((await json(r)).error, body).toBe(error);
    }
  });

  test("JWT (or a full_access key) only: a signals key cannot import", async () => {
    const none = await t.ctx.request("POST", "/api/v1/trading-signals/import", { rawBody: HEADER });
    expect(none.status).toBe(401);
    const bySignalsKey = await t.ctx.request("POST", "/api/v1/trading-signals/import", {
      apiKey: t.apiKey,
      rawBody: HEADER,
      headers: { "content-type": "text/csv" },
    });
    expect(bySignalsKey.status).toBe(403);
  });
});

describe("history import queued for imported tokens older than their bars", () => {
  test("one job per token range, driven by tick(); a token with bars at the signal is not queued", async () => {
    const { ctx } = t;
    const lab = ctx.services.strategyLab;
    const t1 = NOW - 10 * DAY; // MINT: no bars → queued for PRICE_HISTORY_DAYS (7) after it
    const t2 = NOW - 2 * DAY; // MINT2: a recorded bar at its minute → not queued
    lab.bars.recordTicks([{ tokenAddress: MINT2, time: t2, price: "0.02" }]);
    gecko.setHistory(
      MINT,
      POOL,
      Array.from({ length: 5 }, (_, i) => ({
        time: t1 + i * 60_000,
        open: "0.001",
        high: "0.001",
        low: "0.001",
        close: (0.001 + i * 0.0001).toFixed(4),
      })),
    );
    const csv =
      HEADER +
      `,${new Date(t1).toISOString()},${MINT},BONK,buy,4,,hist\r\n` +
      `,${new Date(t1 + 3600_000).toISOString()},${MINT},BONK,buy,4,,hist\r\n` +
      `,${new Date(t2).toISOString()},${MINT2},WIF,buy,4,,hist\r\n`;
    expect(await json(await importCsv(csv))).toEqual({ imported: 3, duplicates: 0, historyQueued: 1 });
    expect(lab.history.pending).toEqual([{ tokenAddress: MINT, fromMs: t1, toMs: t1 + 3600_000 + 7 * DAY }]);
    expect(gecko.requests).toHaveLength(0); // nothing runs until the worker ticks
    const done = await lab.history.tick();
    expect(done?.stored).toBe(5);
    expect(await lab.history.tick()).toBeNull();
    expect(lab.bars.range(MINT, t1, t1 + DAY).map((b) => b.close)).toEqual([
      "0.001",
      "0.0011",
      "0.0012",
      "0.0013",
      "0.0014",
    ]);
  });
});
