import type { Database } from "bun:sqlite";

// The names a reader of an agent's event needs beside its ids (PRODUCT.md §7: webhook and stream
// events carry agentName and tokenSymbol): the agent's name, and the token's symbol from the
// position, else the signal, else the agent's latest position on that token. Read-only lookups by
// primary key or index, once per published event.

export interface EventNames {
  agentName: string | null;
  tokenSymbol: string | null;
}

export function eventNameLookup(sqlite: Database): (data: Record<string, unknown>) => EventNames {
  const agent = sqlite.query<{ name: string }, [string]>("SELECT name FROM agents WHERE id = ?");
  const byPosition = sqlite.query<{ s: string }, [string]>("SELECT token_symbol AS s FROM positions WHERE id = ?");
  const bySignal = sqlite.query<{ s: string | null }, [number]>("SELECT symbol AS s FROM trading_signals WHERE id = ?");
  const byToken = sqlite.query<{ s: string }, [string, string]>(
    "SELECT token_symbol AS s FROM positions WHERE agent_id = ? AND token_address = ? ORDER BY rowid DESC LIMIT 1",
  );
  const str = (v: unknown): string | null => (typeof v === "string" ? v : null);
  return (data) => {
    const agentId = str(data.agentId);
    const positionId = str(data.positionId);
    const tokenAddress = str(data.tokenAddress);
    const signalId = typeof data.signalId === "number" ? data.signalId : null;
    const tokenSymbol =
      (positionId ? byPosition.get(positionId)?.s : undefined) ??
      (signalId !== null ? bySignal.get(signalId)?.s : undefined) ??
      (agentId && tokenAddress ? byToken.get(agentId, tokenAddress)?.s : undefined) ??
      null;
    return { agentName: agentId ? (agent.get(agentId)?.name ?? null) : null, tokenSymbol };
  };
}
