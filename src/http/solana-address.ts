import bs58 from "bs58";

// A Solana public key as text: base58 that decodes to exactly 32 bytes. Token
// mints are public keys, so "BONK" or an Ethereum address is refused at the edge with a clear 400
// instead of being accepted and failing later at the swap aggregator.

export const SOLANA_ADDRESS_MESSAGE = "Token address must be a base58 Solana address (32 bytes)";

const BASE58 = /^[1-9A-HJ-NP-Za-km-z]{32,44}$/;

/**
 * Addresses that passed lately. Signal bots name the same few tokens again and again, and the
 * base58 decode was most of a signal's validation (docs/decisions/under-load.md); bounded, the
 * oldest entry goes first. Only valid addresses are kept, so a flood of bad ones evicts nothing
 * that a lookup could trust wrongly: a miss only means decoding again.
 */
const recentlyValid = new Set<string>();
const REMEMBERED = 4096;

/** True when `text` is base58 decoding to 32 bytes (the form of every Solana public key and mint). */
export function isSolanaAddress(text: string): boolean {
  if (recentlyValid.has(text)) return true;
  if (!BASE58.test(text)) return false;
  let valid: boolean;
  try {
    valid = bs58.decode(text).length === 32;
  } catch {
    return false;
  }
  if (valid) {
    if (recentlyValid.size >= REMEMBERED) recentlyValid.delete(recentlyValid.values().next().value as string);
    recentlyValid.add(text);
  }
  return valid;
}
