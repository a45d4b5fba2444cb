import { afterEach, expect, test } from "bun:test";
import { json, type TestContext } from "../helpers/context.ts";
import { MINT, startTrading, type TradingContext } from "../helpers/trading.ts";

// Issue 24 item 8, "Recovery before the door opens": signals a crash left unfinished are resumed
// (all of them: issue 35) before a new signal is accepted; /health/ready is false until then; the resumed
// ones keep their place ahead of new ones. The contexts here skip the recovery serve() runs
// before opening the door (recover: false), as an app reached before it would be.

let t: TradingContext;
let restarted: TestContext | undefined;
afterEach(async () => {
  await restarted?.close();
  restarted = undefined;
  await t.close();
});

test("an unfinished signal is resumed ahead of a new one, and /health/ready is false until recovery ran", async () => {
  t = await startTrading({ recover: false });
  const agent = await t.createAgent();
  const keyId = t.ctx.database.sqlite.query<{ id: string }, []>("SELECT id FROM api_keys LIMIT 1").get()!.id;
  // Stored and acknowledged by the last run, which was killed before the signal's turn.
  const left = t.ctx.services.signals.create(t.userId, keyId, {
    tokenAddress: MINT,
    symbol: "BONK",
    signalType: "buy",
    signalStrength: 4,
  }).signal;

  restarted = await t.ctx.restart();
  const ready = await restarted.request("GET", "/api/v1/health/ready");
  expect(ready.status).toBe(503);
  expect(await json(ready)).toMatchObject({ ready: false, message: "Recovering unfinished signals" });

  // A new signal for the same token: whichever runs first opens the position, the other is refused.
  const res = await restarted.request("POST", "/api/v1/trading-signals", {
    apiKey: t.apiKey,
    body: { tokenAddress: MINT, symbol: "BONK", signalType: "buy", signalStrength: 5 },
  });
  expect(res.status).toBe(201);
  const fresh = await json(res);
  await restarted.services.signalQueue.idle();

  const positions = restarted.database.sqlite
    .query<{ signal_id: number }, [string]>("SELECT signal_id FROM positions WHERE agent_id = ?")
    .all(agent.id);
  expect(positions).toEqual([{ signal_id: left.id }]);
  const status = (id: number) =>
    restarted!.database.sqlite
      .query<{ s: string }, [number]>("SELECT processing_status AS s FROM trading_signals WHERE id = ?")
      .get(id)!.s;
  expect(status(left.id)).toBe("processed");
  expect(status(fresh.id)).toBe("processed");
  expect((await restarted.request("GET", "/api/v1/health/ready")).status).toBe(200);
});

test("an unfinished signal older than SIGNAL_MAX_AGE_SECONDS is decided at recovery, stale: never traded late, never lost", async () => {
  t = await startTrading({ recover: false });
  const agent = await t.createAgent();
  const keyId = t.ctx.database.sqlite.query<{ id: string }, []>("SELECT id FROM api_keys LIMIT 1").get()!.id;
  const old = t.ctx.services.signals.create(t.userId, keyId, {
    tokenAddress: MINT,
    symbol: "BONK",
    signalType: "buy",
    signalStrength: 4,
  }).signal;
  t.ctx.clock.advance((t.ctx.config.SIGNAL_MAX_AGE_SECONDS + 1) * 1000);
  restarted = await t.ctx.restart();
  restarted.services.signalIntake.ensureRecovered();
  await restarted.services.signalQueue.idle();
  expect((await restarted.request("GET", "/api/v1/health/ready")).status).toBe(200);
  const s = restarted.database.sqlite
    .query<{ s: string }, [number]>("SELECT processing_status AS s FROM trading_signals WHERE id = ?")
    .get(old.id)!.s;
  // Issue 35: every signal that got a 201 is decided; the late buy opens nothing (outcome stale).
  expect(s).toBe("processed");
  const detail = await json(await restarted.request("GET", `/api/v1/trading-signals/${old.id}`, { token: t.token }));
  expect(detail.processing.evaluations).toMatchObject([{ agentId: agent.id, outcome: "stale", rule: null }]);
  expect(
    restarted.database.sqlite
      .query<{ n: number }, [string]>("SELECT count(*) AS n FROM positions WHERE agent_id = ?")
      .get(agent.id)!.n,
  ).toBe(0);
});
