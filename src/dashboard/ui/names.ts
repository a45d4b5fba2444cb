import { signal } from "@preact/signals";

// Names for ids the event stream sends: agent names by agent id and token symbols by mint. Events
// that carry `agentName` / `tokenSymbol` are used as they are; for the others the feed looks the
// names up here. The maps are filled from what pages load anyway (agents, balances, positions,
// signals) and from the events themselves (signal.created names the symbol, position.opened too).

export const agentNames = signal<ReadonlyMap<string, string>>(new Map());
export const tokenSymbols = signal<ReadonlyMap<string, string>>(new Map());

function merge(target: typeof agentNames, entries: Iterable<readonly [string, string | null | undefined]>): void {
  let next: Map<string, string> | null = null;
  for (const [id, name] of entries) {
    if (!id || !name || target.value.get(id) === name) continue;
    next ??= new Map(target.value);
    next.set(id, name);
  }
  if (next) target.value = next;
}

export const rememberAgents = (agents: Iterable<{ id: string; name: string }>) =>
  merge(
    agentNames,
    [...agents].map((a) => [a.id, a.name] as const),
  );

export const rememberTokens = (tokens: Iterable<{ tokenAddress: string; symbol?: string | null }>) =>
  merge(
    tokenSymbols,
    [...tokens].map((t) => [t.tokenAddress, t.symbol] as const),
  );

/** Names an event's payload carries (the event's own fields, or a signal's). */
export function rememberFromEvent(data: Record<string, unknown>): void {
  const str = (v: unknown) => (typeof v === "string" && v ? v : null);
  const sig = data.signal as Record<string, unknown> | undefined;
  const address = str(data.tokenAddress) ?? str(sig?.tokenAddress);
  const symbol = str(data.tokenSymbol) ?? str(sig?.symbol);
  if (address && symbol) rememberTokens([{ tokenAddress: address, symbol }]);
  const agentId = str(data.agentId);
  const agentName = str(data.agentName);
  if (agentId && agentName) rememberAgents([{ id: agentId, name: agentName }]);
}

const BASE58 = /^[1-9A-HJ-NP-Za-km-z]{32,44}$/;

/**
 * What a token picker entry names: a mint address in it (as pasted, or a suggestion "SYMBOL mint"),
 * else the one mint known by that symbol (any case). A symbol is not unique: one that names several
 * mints is refused with a hint to pick from the suggestions.
 */
export function resolveToken(
  entry: string,
  symbols: ReadonlyMap<string, string>,
): { mint: string } | { error: string } {
  const text = entry.trim();
  const address = text.split(/\s+/).find((w) => BASE58.test(w));
  if (address) return { mint: address };
  const mints = [...symbols].filter(([, s]) => s.toLowerCase() === text.toLowerCase()).map(([m]) => m);
  if (mints.length === 1) return { mint: mints[0] as string };
  if (mints.length > 1)
    return { error: `Several tokens are called ${text}: pick one from the list (it shows each mint)` };
  return { error: `No token called ${text} among your signals: paste its mint address` };
}
