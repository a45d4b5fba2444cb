import bs58 from "bs58";

// A Solana public key as text: base58 that decodes to exactly 32 bytes. Token
// mints are public keys, so "BONK" or an Ethereum address is refused at the edge with a clear 400
// instead of being accepted and failing later at the swap aggregator.

export const SOLANA_ADDRESS_MESSAGE = "Token address must be a base58 Solana address (32 bytes)";

const BASE58 = /^[1-9A-HJ-NP-Za-km-z]{32,44}$/;

/** True when `text` is base58 decoding to 32 bytes (the form of every Solana public key and mint). */
export function isSolanaAddress(text: string): boolean {
  if (!BASE58.test(text)) return false;
  try {
    return bs58.decode(text).length === 32;
  } catch {
    return false;
  }
}
