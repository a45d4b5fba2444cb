import type { LandedTransaction } from "./landed-transaction.ts";
import type { RpcRequestBudget } from "./rpc-budget.ts";
import type { SignatureInfo, SolanaRpcClient } from "./solana-rpc.ts";

// Where the copy-trading watcher (src/copytrading) reads a wallet's transactions: the Solana RPC
// (SOLANA_RPC_URL), or the demo market's synthetic wallets (demo/copy-wallets.ts). Both answer in
// the node's terms.

export interface SignaturePage {
  until: string | null;
  before: string | null;
  limit: number;
}

export interface WalletActivitySource {
  /**
   * Signatures touching `address`, newest first, after `until` and before `before` (both
   * exclusive, either may be null), at most `limit`.
   */
  signatures(address: string, page: SignaturePage): Promise<SignatureInfo[]>;
  /**
   * The landed transaction at `confirmed`, or null while the node does not have it. Throws
   * TransactionVersionUnsupported for one of a version this service does not read (v1).
   */
  transaction(signature: string): Promise<LandedTransaction | null>;
  /** Whether one more request may be sent now (the RPC budget shared with live trading). */
  allow(): boolean;
}

/**
 * Over the live path's own RPC client, so every request lands in its one budget. `confirmed`
 * commitment: finalized lags about 13 s behind, too late to copy.
 */
export class RpcWalletActivity implements WalletActivitySource {
  constructor(
    private readonly rpc: SolanaRpcClient,
    private readonly budget: RpcRequestBudget,
  ) {}

  signatures(address: string, page: SignaturePage): Promise<SignatureInfo[]> {
    return this.rpc.getSignaturesForAddress(
      address,
      { until: page.until ?? undefined, before: page.before ?? undefined, limit: page.limit },
      "confirmed",
    );
  }

  transaction(signature: string): Promise<LandedTransaction | null> {
    return this.rpc.getTransaction(signature, "confirmed");
  }

  allow(): boolean {
    return this.budget.allow();
  }
}
