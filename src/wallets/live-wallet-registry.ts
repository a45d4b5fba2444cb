import type { Keypair, Transaction, VersionedTransaction } from "@solana/web3.js";
import bs58 from "bs58";
import { ConfigError, walletVariables } from "../config.ts";
import { web3 } from "../lazy/modules.ts";

// Live wallets (SPEC "What the service does" item 6, PRODUCT.md §5): WALLET_1, WALLET_2, ... each
// a base58 64-byte secret key or a JSON array of 64 bytes, parsed once at start. The secrets live
// only inside this object, in a private field: callers get public keys, `has(address)`, and a
// signing operation, never the key itself. Nothing here is ever written to the database or a log.

const SECRET_KEY_BYTES = 64;

export class LiveWalletRegistry {
  readonly #keys: Map<string, Keypair>;
  readonly #variables: Map<string, string>;

  private constructor(entries: Array<{ variable: string; keypair: Keypair }>) {
    this.#keys = new Map(entries.map((e) => [e.keypair.publicKey.toBase58(), e.keypair]));
    this.#variables = new Map(entries.map((e) => [e.keypair.publicKey.toBase58(), e.variable]));
  }

  /** No live wallets (tests, simulation-only set-ups). */
  static empty(): LiveWalletRegistry {
    return new LiveWalletRegistry([]);
  }

  /**
   * Parses every WALLET_N of `env`. A malformed value, or two variables holding the same key,
   * throws ConfigError with one line per variable, naming it and never echoing the value, so
   * main.ts stops the start with exit code 2 (PRODUCT.md §1, §5).
   */
  static fromEnv(env: Record<string, string | undefined>): LiveWalletRegistry {
    const problems: string[] = [];
    const entries: Array<{ variable: string; keypair: Keypair }> = [];
    const seen = new Map<string, string>();
    for (const { name, value } of walletVariables(env)) {
      const parsed = parseSecretKey(value);
      if (typeof parsed === "string") {
        problems.push(`${name}: ${parsed}`);
        continue;
      }
      const address = parsed.publicKey.toBase58();
      const earlier = seen.get(address);
      if (earlier) {
        problems.push(`${name}: holds the same wallet as ${earlier}`);
        continue;
      }
      seen.set(address, name);
      entries.push({ variable: name, keypair: parsed });
    }
    if (problems.length > 0) throw new ConfigError(problems);
    return new LiveWalletRegistry(entries);
  }

  /** Public keys (base58) in WALLET_N order. */
  addresses(): string[] {
    return [...this.#keys.keys()];
  }

  has(address: string): boolean {
    return this.#keys.has(address);
  }

  /** The variable a wallet came from (for log lines and messages; never its value). */
  variableOf(address: string): string | undefined {
    return this.#variables.get(address);
  }

  get size(): number {
    return this.#keys.size;
  }

  /**
   * Signs a transaction with the wallet's key in memory (the live executor's one use of it).
   * Throws when the wallet is not loaded; the error names the address only.
   */
  signTransaction<T extends VersionedTransaction | Transaction>(address: string, tx: T): T {
    const keypair = this.#keys.get(address);
    if (!keypair) throw new Error(`Live wallet ${address} is not loaded from environment variables`);
    if ("version" in tx) (tx as VersionedTransaction).sign([keypair]);
    else (tx as Transaction).partialSign(keypair);
    return tx;
  }

  /**
   * The secrets' text forms, for the logger's scrubber ONLY (createServices hands this to
   * createLogger's `secrets`): base58 and JSON-array forms of each secret key and of its 32-byte
   * seed, plus hex and base64, so a line that somehow carries one prints [REDACTED] instead.
   * Nothing else may call it.
   */
  redactionStrings(): string[] {
    const out: string[] = [];
    for (const kp of this.#keys.values()) {
      for (const bytes of [kp.secretKey, kp.secretKey.slice(0, 32)]) {
        const arr = Array.from(bytes);
        out.push(
          bs58.encode(bytes),
          JSON.stringify(arr),
          arr.join(", "),
          arr.join(","),
          Buffer.from(bytes).toString("hex"),
          Buffer.from(bytes).toString("base64"),
        );
      }
    }
    return out;
  }

  // A registry that reaches JSON.stringify or util.inspect (a careless log line) shows addresses only.
  toJSON(): { liveWallets: string[] } {
    return { liveWallets: this.addresses() };
  }

  [Symbol.for("nodejs.util.inspect.custom")](): string {
    return `LiveWalletRegistry(${this.addresses().join(", ")})`;
  }
}

/** A Keypair, or the reason the value is not a usable secret key (without the value). */
function parseSecretKey(raw: string): Keypair | string {
  const value = raw.trim();
  let bytes: Uint8Array;
  if (value.startsWith("[")) {
    let arr: unknown;
    try {
      arr = JSON.parse(value);
    } catch {
      return "is not valid JSON (expected a JSON array of 64 bytes or a base58 secret key)";
    }
    if (
      !Array.isArray(arr) ||
      arr.length !== SECRET_KEY_BYTES ||
      !arr.every((b) => Number.isInteger(b) && b >= 0 && b <= 255)
    ) {
      return "must be a JSON array of exactly 64 integers between 0 and 255";
    }
    bytes = Uint8Array.from(arr as number[]);
  } else {
    try {
      bytes = bs58.decode(value);
    } catch {
      return "is not valid base58 (expected a base58 64-byte secret key or a JSON array of 64 bytes)";
    }
    if (bytes.length !== SECRET_KEY_BYTES) return `must decode to 64 bytes (got ${bytes.length})`;
  }
  try {
    // Validation on: the last 32 bytes must be the public key of the first 32.
    return web3().Keypair.fromSecretKey(bytes);
  } catch {
    return "is not a valid ed25519 secret key (public half does not match)";
  }
}
