import { describe, expect, test } from "bun:test";
import { createPublicKey, verify } from "node:crypto";
import { Keypair, PublicKey, TransactionMessage, VersionedTransaction } from "@solana/web3.js";
import bs58 from "bs58";
import { runCli } from "../../src/cli.ts";
import { ConfigError } from "../../src/config.ts";
import { LiveWalletRegistry } from "../../src/wallets/live-wallet-registry.ts";

// PRODUCT.md §5: WALLET_N is a base58 64-byte secret key or a JSON array of 64 bytes; a malformed
// one stops the start naming the variable, never the value; keys live only in memory.

const k1 = Keypair.generate();
const k2 = Keypair.generate();
const base58Of = (k: Keypair) => bs58.encode(k.secretKey);
const jsonOf = (k: Keypair) => JSON.stringify(Array.from(k.secretKey));

function problemsOf(env: Record<string, string>): string[] {
  try {
    LiveWalletRegistry.fromEnv(env);
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return (err as ConfigError).problems;
  }
  throw new Error("expected a ConfigError");
}

describe("LiveWalletRegistry.fromEnv", () => {
  test("parses base58 and JSON-array secrets in WALLET_N order", () => {
    const r = LiveWalletRegistry.fromEnv({
      WALLET_2: jsonOf(k2),
      WALLET_1: base58Of(k1),
      OTHER: "x",
      WALLET_X: "ignored",
    });
    expect(r.addresses()).toEqual([k1.publicKey.toBase58(), k2.publicKey.toBase58()]);
    expect(r.size).toBe(2);
    expect(r.has(k1.publicKey.toBase58())).toBe(true);
    expect(r.has(Keypair.generate().publicKey.toBase58())).toBe(false);
    expect(r.variableOf(k2.publicKey.toBase58())).toBe("WALLET_2");
    expect(LiveWalletRegistry.fromEnv({}).addresses()).toEqual([]);
    expect(LiveWalletRegistry.fromEnv({ WALLET_1: "" }).size).toBe(0);
  });

  test("every malformed variable is named, and no value is echoed", () => {
    const random64 = bs58.encode(crypto.getRandomValues(new Uint8Array(64)));
    const short = bs58.encode(k1.secretKey.slice(0, 32));
    const env = {
      WALLET_1: base58Of(k1),
      WALLET_2: "not base58 0OIl",
      WALLET_3: "[1,2,3]",
      WALLET_4: "[not json",
      WALLET_5: short,
      WALLET_6: random64,
      WALLET_7: base58Of(k1),
    };
    const problems = problemsOf(env);
    expect(problems).toEqual([
      "WALLET_2: is not valid base58 (expected a base58 64-byte secret key or a JSON array of 64 bytes)",
      "WALLET_3: must be a JSON array of exactly 64 integers between 0 and 255",
      "WALLET_4: is not valid JSON (expected a JSON array of 64 bytes or a base58 secret key)",
      "WALLET_5: must decode to 64 bytes (got 32)",
      "WALLET_6: is not a valid ed25519 secret key (public half does not match)",
      "WALLET_7: holds the same wallet as WALLET_1",
    ]);
    const text = problems.join("\n");
    for (const value of Object.values(env)) expect(text.includes(value)).toBe(false);
  });

  test("a JSON array with an out-of-range byte is refused", () => {
    const bytes = Array.from(k1.secretKey);
    bytes[3] = 256;
    expect(problemsOf({ WALLET_9: JSON.stringify(bytes) })).toEqual([
      "WALLET_9: must be a JSON array of exactly 64 integers between 0 and 255",
    ]);
  });

  test("serialising or inspecting the registry shows public keys only", () => {
    const r = LiveWalletRegistry.fromEnv({ WALLET_1: base58Of(k1) });
    const shown = JSON.stringify(r) + Bun.inspect(r) + JSON.stringify({ nested: r });
    expect(shown).toContain(k1.publicKey.toBase58());
    expect(shown.includes(base58Of(k1))).toBe(false);
    expect(shown.includes(`${String(k1.secretKey[0])},${String(k1.secretKey[1])},${String(k1.secretKey[2])}`)).toBe(
      false,
    );
    expect(Object.keys(r)).toEqual([]);
  });

  test("signTransaction signs with the wallet's key; an unknown wallet is refused", () => {
    const r = LiveWalletRegistry.fromEnv({ WALLET_1: base58Of(k1) });
    const message = new TransactionMessage({
      payerKey: k1.publicKey,
      recentBlockhash: bs58.encode(new Uint8Array(32).fill(7)),
      instructions: [],
    }).compileToV0Message();
    const tx = new VersionedTransaction(message);
    r.signTransaction(k1.publicKey.toBase58(), tx);
    const signature = tx.signatures[0] as Uint8Array;
    const publicKey = createPublicKey({
      key: { kty: "OKP", crv: "Ed25519", x: Buffer.from(k1.publicKey.toBytes()).toString("base64url") },
      format: "jwk",
    });
    expect(verify(null, tx.message.serialize(), publicKey, signature)).toBe(true);
    const stranger = new PublicKey(Keypair.generate().publicKey.toBytes()).toBase58();
    expect(() => r.signTransaction(stranger, tx)).toThrow(
      `Live wallet ${stranger} is not loaded from environment variables`,
    );
  });
});

test("`serve` with a malformed WALLET_3 exits 2 naming the variable, never the value", async () => {
  const out: string[] = [];
  const err: string[] = [];
  const secret = "[1,2,3,4]";
  const code = await runCli(["serve"], {
    out: (t) => out.push(t),
    err: (t) => err.push(t),
    env: { WALLET_1: base58Of(k1), WALLET_3: secret, DATABASE_PATH: "/nonexistent/never-opened.db" },
  });
  expect(code).toBe(2);
  expect(err).toEqual(["config error: WALLET_3: must be a JSON array of exactly 64 integers between 0 and 255"]);
  expect(err.join("").includes(secret) || err.join("").includes(base58Of(k1))).toBe(false);
});
