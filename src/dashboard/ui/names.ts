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
