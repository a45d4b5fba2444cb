// Links to the block explorer the service names (EXPLORER_URL, Solscan by default; GET
// /trading/status carries it, components.tsx's ExplorerLink reads it there): a transaction's signature, a wallet's address, a token's mint.
// Simulated ids (sim_…) are not on any chain and get no link; neither does anything while the
// service says no explorer (EXPLORER_URL empty).

export type ExplorerKind = "tx" | "account" | "token";

const BASE58 = /^[1-9A-HJ-NP-Za-km-z]{32,88}$/;
/** Until the service said otherwise (older servers do not say). */
export const DEFAULT_EXPLORER = "https://solscan.io";

/** The explorer's page of `id`, or null when there is none (simulated id, links turned off). */
export function explorerHref(kind: ExplorerKind, id: string | null | undefined, root: string): string | null {
  if (!root || !id || !BASE58.test(id)) return null;
  try {
    const url = new URL(root);
    url.pathname = `${url.pathname.replace(/\/+$/, "")}/${kind}/${id}`;
    return url.toString();
  } catch {
    return null;
  }
}
