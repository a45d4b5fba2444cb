import { observeRpc, type ReachabilityObserver } from "./reachability.ts";
import { SolanaRpcClient, type SolanaRpcOptions } from "./solana-rpc.ts";

/**
 * The Solana RPC client whose every call tells the reachability tracker whether the node answered
 * (GET /data-sources/status `solanaRpc`, the /health check with live trading on; issue 34), or
 * `solanaConfirmRpc` for the confirm node (SOLANA_CONFIRM_RPC_URL).
 */
export class ObservedSolanaRpcClient extends SolanaRpcClient {
  constructor(
    opts: SolanaRpcOptions,
    private readonly reachability: ReachabilityObserver | undefined,
    private readonly source: "solanaRpc" | "solanaConfirmRpc" = "solanaRpc",
  ) {
    super(opts);
  }

  override call<T = unknown>(method: string, params: unknown[]): Promise<T> {
    const answer = super.call<T>(method, params);
    return this.reachability ? observeRpc(answer, this.source, this.reachability) : answer;
  }
}
