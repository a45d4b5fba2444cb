import { randomInt } from "node:crypto";

// Simulation wallets are virtual (SPEC "Wallet endpoints"): `sim_` + 32 base58 characters from a
// CSPRNG (PRODUCT.md §3). The base58 alphabet keeps them visually close to real public keys.

const BASE58 = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz";
const SIMULATION_PREFIX = "sim_";
/** What POST /wallets/assign accepts as a simulation address: sim_ + 1..64 base58 characters. */
export const SIMULATION_ADDRESS_PATTERN = /^sim_[1-9A-HJ-NP-Za-km-z]{1,64}$/;

export function generateSimulationAddress(): string {
  let out = SIMULATION_PREFIX;
  for (let i = 0; i < 32; i++) out += BASE58[randomInt(BASE58.length)];
  return out;
}
