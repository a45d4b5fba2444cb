import { createHash } from "node:crypto";
import { Keypair, PublicKey, SystemProgram, VersionedTransaction } from "@solana/web3.js";
import bs58 from "bs58";
import type { LiteSvmRpc } from "./litesvm-rpc.ts";
import { LocalServer } from "./local-server.ts";

// A Jito block engine on 127.0.0.1 that lands bundles on the litesvm chain, speaking the JSON-RPC
// of https://docs.jito.wtf/lowlatencytxnsend/ on POST /api/v1/bundles:
//   getTipAccounts → [8 base58 addresses] (Jito's published mainnet tip accounts, as
//     https://docs.jito.wtf/lowlatencytxnsend/ answers them; funded on the chain so a small tip is
//     valid). `hostileTipAccount` set: that address is listed too (a wrong or hostile engine URL).
//   sendBundle [[base64...], {encoding: "base64"}] → bundle id (sha256 of the signatures, hex);
//     at most 5 transactions; a bundle without a System transfer to a tip account is refused
//     (-32602, as a bundle the engine would never pick); base58 is accepted too, as Jito does.
//   getBundleStatuses [[ids]] → {context: {slot}, value: [{bundle_id, transactions, slot,
//     confirmation_status: "confirmed", err: {Ok: null}} | null]}
// Controls: `dropNext` (accept the next bundle, never land it), `bundles`, `requests`.

const TIP_FUNDING = 1_000_000n;
/** What mainnet's block engine answers getTipAccounts (in its order). */
const MAINNET_TIP_ACCOUNTS = [
  "96gYZGLnJYVFmbjzopPSU6QiEV5fGqZNyN9nmNhvrZU5",
  "HFqU5x63VTqvQss8hp11i4wVV8bD44PvwucfZ2bU7gRe",
  "Cw8CFyM9FkoMi7K7Crf6HNQqf4uEMzpKw6QNghXLvLkY",
  "ADaUMid9yfUytqMBgopwjb2DTLSokTSzL1zt6iGPaS49",
  "DfXygSm4jCyNCybVYYK6DwvWqjKee8pbDmJGcLWNDXjh",
  "ADuUkR4vqLUMWXxW9gh6D6L8pMSawimctcNZ5pGwDcEt",
  "DttWaMuVvTiduZRnguLF7jNxTgiMBZ1hyAumKUiL2KRL",
  "3AVi9Tg9Uo68tJfuvoKvqKNWKkC5wPdSSdeBnizKZ6jT",
];

export class FakeJitoBlockEngine extends LocalServer {
  readonly tipAccounts = MAINNET_TIP_ACCOUNTS.map((a) => new PublicKey(a));
  /** Listed by getTipAccounts after the published ones, and accepted as a tip (funded on the chain). */
  readonly hostileTipAccount = Keypair.fromSeed(new Uint8Array(32).fill(7)).publicKey;
  /** getTipAccounts lists hostileTipAccount too. */
  listHostile = false;
  readonly requests: Array<{ method: string; params: unknown[] }> = [];
  readonly bundles = new Map<string, { signatures: string[]; landed: boolean; slot: number }>();
  dropNext = false;

  constructor(readonly chain: LiteSvmRpc) {
    super();
    for (const a of [...this.tipAccounts, this.hostileTipAccount]) chain.airdrop(a, TIP_FUNDING);
  }

  protected async handle(req: Request): Promise<Response> {
    const url = new URL(req.url);
    if (req.method !== "POST" || url.pathname !== "/api/v1/bundles")
      return Response.json({ error: "Not found" }, { status: 404 });
    const body = (await req.json().catch(() => null)) as { id?: unknown; method?: unknown; params?: unknown } | null;
    const id = body?.id ?? null;
    const method = String(body?.method);
    const params = Array.isArray(body?.params) ? body.params : [];
    this.requests.push({ method, params });
    const error = (code: number, message: string) => Response.json({ jsonrpc: "2.0", id, error: { code, message } });
    const ok = (result: unknown) => Response.json({ jsonrpc: "2.0", id, result });
    switch (method) {
      case "getTipAccounts":
        return ok(this.listed().map((a) => a.toBase58()));
      case "sendBundle": {
        const r = this.sendBundle(params);
        return typeof r === "string" ? ok(r) : error(r.code, r.message);
      }
      case "getBundleStatuses": {
        const ids = Array.isArray(params[0]) ? (params[0] as unknown[]).map(String) : [];
        const value = ids.map((bid) => {
          const b = this.bundles.get(bid);
          return b?.landed
            ? {
                bundle_id: bid,
                transactions: b.signatures,
                slot: b.slot,
                confirmation_status: "confirmed",
                err: { Ok: null },
              }
            : null;
        });
        return ok({ context: { slot: this.chain.slot }, value });
      }
      default:
        return error(-32601, "Method not found");
    }
  }

  private sendBundle(params: unknown[]): string | { code: number; message: string } {
    const raw = params[0];
    const encoding = (params[1] as { encoding?: unknown } | undefined)?.encoding ?? "base58";
    if (!Array.isArray(raw) || raw.length === 0 || raw.length > 5)
      return { code: -32602, message: "bundle must contain 1 to 5 transactions" };
    let txs: VersionedTransaction[];
    try {
      txs = raw.map((t) =>
        VersionedTransaction.deserialize(
          encoding === "base64" ? Buffer.from(String(t), "base64") : bs58.decode(String(t)),
        ),
      );
    } catch {
      return { code: -32602, message: "could not decode transactions" };
    }
    if (!txs.some((tx) => this.tips(tx)))
      return {
        code: -32602,
        message: "Bundles must write lock at least one tip account to be eligible for the auction",
      };
    const signatures = txs.map((tx) => bs58.encode(tx.signatures[0]!));
    const bundleId = createHash("sha256").update(signatures.join(",")).digest("hex");
    const entry = { signatures, landed: false, slot: this.chain.slot };
    this.bundles.set(bundleId, entry);
    if (this.dropNext) {
      this.dropNext = false;
      return bundleId;
    }
    // All or nothing: every transaction must pass a simulation before any lands.
    for (const t of raw) {
      const b64 = encoding === "base64" ? String(t) : Buffer.from(bs58.decode(String(t))).toString("base64");
      const sim = this.chain.rpcCall("simulateTransaction", [b64, { encoding: "base64", sigVerify: true }]);
      if (sim.error || (sim.result as { value: { err: unknown } }).value.err) return bundleId;
    }
    for (const t of raw) {
      const b64 = encoding === "base64" ? String(t) : Buffer.from(bs58.decode(String(t))).toString("base64");
      this.chain.rpcCall("sendTransaction", [b64, { encoding: "base64", skipPreflight: true }]);
    }
    entry.landed = signatures.every((s) => this.chain.landed.has(s));
    return bundleId;
  }

  private listed(): PublicKey[] {
    return this.listHostile ? [...this.tipAccounts, this.hostileTipAccount] : this.tipAccounts;
  }

  /** Whether the transaction transfers lamports to a tip account (System transfer, static keys). */
  private tips(tx: VersionedTransaction): boolean {
    const keys = tx.message.staticAccountKeys;
    const tipSet = new Set(this.listed().map((a) => a.toBase58()));
    return tx.message.compiledInstructions.some((ix) => {
      if (!keys[ix.programIdIndex]?.equals(SystemProgram.programId)) return false;
      const to = keys[ix.accountKeyIndexes[1] ?? -1];
      return ix.data[0] === 2 && to !== undefined && tipSet.has(to.toBase58());
    });
  }
}

export async function startFakeJitoBlockEngine(chain: LiteSvmRpc): Promise<FakeJitoBlockEngine> {
  return new FakeJitoBlockEngine(chain).start();
}
