import { expect, test } from "bun:test";
import { Keypair } from "@solana/web3.js";
import bs58 from "bs58";
import { isSolanaAddress } from "../../src/http/solana-address.ts";

// src/http/solana-address.ts: base58 decoding to exactly 32 bytes, with recently valid addresses
// remembered (bounded). Remembering must never change an answer.

const BONK = "DezXAZ8z7PnrnRJjz3wXBoRgixCa6xjnB7YaB1pPB263";

test("32-byte base58 passes, every other text fails, the same on a second asking", () => {
  const thirtyThree = bs58.encode(new Uint8Array(33).fill(7));
  const thirtyOne = bs58.encode(new Uint8Array(31).fill(7));
  const cases: Array<[string, boolean]> = [
    [BONK, true],
    [thirtyThree, false],
    [thirtyOne, false],
    ["BONK", false],
    [`${BONK.slice(0, -1)}0`, false], // 0 is not base58
    ["0x4200000000000000000000000000000000000006", false],
    ["", false],
  ];
  for (let round = 0; round < 2; round++)
    for (const [text, valid] of cases) expect(isSolanaAddress(text), `${round}: ${text}`).toBe(valid);
});

test("beyond the remembered few thousand, old and new addresses are still judged right", () => {
  const many = Array.from({ length: 5000 }, () => Keypair.generate().publicKey.toBase58());
  for (const a of many) expect(isSolanaAddress(a)).toBe(true);
  // The first ones were forgotten: decoded again, still valid; a near miss of one still invalid.
  expect(isSolanaAddress(many[0] as string)).toBe(true);
  expect(isSolanaAddress(`${many[0]}1`)).toBe(bs58.decode(`${many[0]}1`).length === 32);
  expect(isSolanaAddress(many[4999] as string)).toBe(true);
});
