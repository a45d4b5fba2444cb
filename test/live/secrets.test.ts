import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import type { Keypair } from "@solana/web3.js";
import bs58 from "bs58";
import { createLogger } from "../../src/logger.ts";
import { json } from "../helpers/context.ts";
import { type LiveContext, startLive } from "./live-context.ts";

// SPEC "Private keys of live wallets are held only in memory and never stored"; issue: live
// trading "Keys: WALLET_N only in memory; never logged, never in the database, responses or
// errors". A whole live session — deposit checks, a buy, a pending sale reconciled, refused and
// failed swaps, debug logging — then the database file, its WAL, every captured log line and every
// HTTP response body are searched for every text and binary form of every WALLET_N secret.

let l: LiveContext;
beforeEach(async () => {
  l = await startLive();
});
afterEach(() => l.close());

/** Every form a secret could leak in: as given, base58, JSON arrays, hex, base64, raw bytes; the seed half too. */
function forms(kp: Keypair, envValue: string): { text: string[]; bytes: Buffer[] } {
  const text = [envValue];
  const bytes: Buffer[] = [];
  for (const b of [kp.secretKey, kp.secretKey.slice(0, 32)]) {
    const arr = Array.from(b);
    text.push(
      bs58.encode(b),
      JSON.stringify(arr),
      arr.join(", "),
      arr.join(","),
      Buffer.from(b).toString("hex"),
      Buffer.from(b).toString("base64"),
    );
    bytes.push(Buffer.from(b));
  }
  return { text, bytes };
}

function assertAbsent(where: string, haystack: Buffer, kp: Keypair, envValue: string) {
  const f = forms(kp, envValue);
  for (const s of f.text)
    expect({ where, found: haystack.includes(Buffer.from(s, "utf8")) }).toEqual({ where, found: false });
  for (const b of f.bytes) expect({ where, found: haystack.includes(b) }).toEqual({ where, found: false });
}

describe("WALLET_N secrets", () => {
  test("never in the database file, the WAL, the logs or any response", async () => {
    const a1 = await l.liveAgent({ walletIndex: 0 });
    const a2 = await l.liveAgent({ walletIndex: 1 });
    // WALLET_2 (given as a JSON array) holds 1 SOL; 5 % = 0.05 SOL.
    await l.postSignal();
    await l.settle();
    expect(l.count("positions", "status = 'open'")).toBe(2);

    // A pending sale, reconciled.
    const [pos] = await json(await l.request("GET", `/api/v1/agent-positions/${a1.id}`));
    l.rpc.landNext({ kind: "hold" });
    expect((await l.request("POST", `/api/v1/agent-positions/${a1.id}/${pos.id}/close`)).status).toBe(502);
    l.rpc.land(l.rpc.sentTransactions().at(-1)!.signature);
    await l.tick();
    // A refused swap (RPC error) and a failed one (on chain), and a close of the second agent.
    l.rpc.failNext("sendTransaction", { code: -32003, message: "Transaction signature verification failure" });
    await l.postSignal({ tokenAddress: "EKpQGSJtjMFqKZ9KQanSqYXRcF8fBopzLHYxdM65zcjm", symbol: "WIF" });
    await l.settle();
    const [pos2] = await json(await l.request("GET", `/api/v1/agent-positions/${a2.id}`));
    l.rpc.landNext({ kind: "fail" });
    expect((await l.request("POST", `/api/v1/agent-positions/${a2.id}/${pos2.id}/close`)).status).toBe(400);
    expect((await l.request("POST", `/api/v1/agent-positions/${a2.id}/${pos2.id}/close`)).status).toBe(200);
    await l.request("GET", `/api/v1/wallets/agent/${a1.id}`);
    await l.request("GET", "/api/v1/wallets");
    await l.request("POST", `/api/v1/wallets/${a1.wallet}/check-deposits`);
    expect(l.rpc.callsOf("sendTransaction").length).toBeGreaterThanOrEqual(5);

    // A careless log line carrying the secrets is scrubbed by the logger (the last defence).
    l.ctx.services.logger.warn("careless", {
      note: `k=${l.walletEnv.WALLET_1}`,
      arr: l.walletEnv.WALLET_2,
      keys: Array.from(l.keypairs[0]!.secretKey).join(", "),
    });
    const careless = l.logLines().find((x) => x.msg === "careless")!;
    expect(careless).toEqual(expect.objectContaining({ note: "k=[REDACTED]", arr: "[REDACTED]", keys: "[REDACTED]" }));

    const dbPath = l.ctx.config.DATABASE_PATH;
    const scans: Array<[string, Buffer]> = [
      ["database", readFileSync(dbPath)],
      ["logs", Buffer.from(l.ctx.logs.join("\n"))],
      ["responses", Buffer.from(l.responses.join("\n"))],
    ];
    expect(existsSync(`${dbPath}-wal`)).toBe(true);
    scans.push(["wal", readFileSync(`${dbPath}-wal`)]);
    expect(l.ctx.logs.length).toBeGreaterThan(50);
    // The scan can find things: the public keys are there (in the WAL until a checkpoint).
    expect(Buffer.concat(scans.map(([, b]) => b)).includes(Buffer.from(l.wallet))).toBe(true);
    expect(scans[3]![1].includes(Buffer.from(l.wallet))).toBe(true);
    for (const [where, buf] of scans) {
      assertAbsent(where, buf, l.keypairs[0]!, l.walletEnv.WALLET_1!);
      assertAbsent(where, buf, l.keypairs[1]!, l.walletEnv.WALLET_2!);
    }
    // And the database file once the WAL is folded into it (as close does).
    l.ctx.database.sqlite.exec("PRAGMA wal_checkpoint(TRUNCATE)");
    const closed = readFileSync(dbPath);
    expect(closed.includes(Buffer.from(l.wallet))).toBe(true);
    assertAbsent("database after checkpoint", closed, l.keypairs[0]!, l.walletEnv.WALLET_1!);
    assertAbsent("database after checkpoint", closed, l.keypairs[1]!, l.walletEnv.WALLET_2!);
  });

  test("the logger scrubs every text form the registry lists", () => {
    const lines: string[] = [];
    const log = createLogger({
      level: "debug",
      write: (x) => lines.push(x),
      secrets: () => l.registry.redactionStrings(),
    });
    for (const [i, kp] of l.keypairs.entries()) {
      for (const s of forms(kp, Object.values(l.walletEnv)[i]!).text) log.info("leak", { value: `before ${s} after` });
    }
    expect(lines.length).toBe(2 * 13);
    for (const line of lines) expect(JSON.parse(line).value).toBe("before [REDACTED] after");
    // The registry itself shows addresses only.
    expect(JSON.stringify(l.registry)).toBe(
      JSON.stringify({ liveWallets: l.keypairs.map((k) => k.publicKey.toBase58()) }),
    );
  });
});
