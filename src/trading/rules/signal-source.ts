// Signal sources (issue 41 item 5, docs/decisions/close-all-and-sources.md): which signals an agent
// trades (`filters.sources`) and which position an exit signal may close.
//
// A signal's source is who sent it, as the service knows it, never what a sender wrote about itself:
// - posted with an API key: that key (named by the key's name; compared by its id);
// - made by the service (copy trading, signal hooks): its `source` field, `wallet:<address>`,
//   `group:<name>` or `hook:<name>`, which only the service writes on keyless signals.
// An API key's signal may carry any free text in `source`; it never counts. A key named like a
// built-in source ("wallet:…") is still a key: a built-in entry never matches a key's signal.
// Imported signals (strategy lab) carry no key: their `source` text is their source.

/** What a signal, or the signal that opened a position, says about who sent it. */
export interface SignalOrigin {
  apiKeyId: string | null;
  /** The key's current name (null when the key was deleted since). */
  apiKeyName: string | null;
  source: string | null;
}

const BUILT_IN_SOURCE_PREFIXES = ["wallet:", "group:", "hook:"] as const;

const isBuiltInSource = (entry: string): boolean => BUILT_IN_SOURCE_PREFIXES.some((p) => entry.startsWith(p));

/** The source as a person reads it: the key's name, or the built-in source; null when unknown. */
function sourceLabel(o: SignalOrigin): string | null {
  return o.apiKeyId !== null ? o.apiKeyName : o.source;
}

/** Whether `sources` (filters.sources) lets the agent act on a signal of this origin; [] = every source. */
function acceptsSource(sources: readonly string[], o: SignalOrigin): boolean {
  if (sources.length === 0) return true;
  const label = sourceLabel(o);
  if (label === null) return false;
  return sources.some((entry) => entry === label && (o.apiKeyId === null || !isBuiltInSource(entry)));
}

/** The reason of rule `source` when the agent does not trade this signal's source, else null. */
export function sourceRefusal(sources: readonly string[], o: SignalOrigin): string | null {
  if (acceptsSource(sources, o)) return null;
  return `Signal source ${describe(o)} is not in filters.sources (${sources.join(", ")})`;
}

const describe = (o: SignalOrigin) => {
  if (o.apiKeyId !== null) return o.apiKeyName === null ? "a deleted API key" : `API key "${o.apiKeyName}"`;
  return o.source === null ? "(none)" : o.source;
};

/** Same sender: the same API key, or (keyless) the same built-in source. */
function sameSource(a: SignalOrigin, b: SignalOrigin): boolean {
  if (a.apiKeyId !== null || b.apiKeyId !== null) return a.apiKeyId === b.apiKeyId;
  return a.source !== null && a.source === b.source;
}

/**
 * Whether an exit signal may close a position, as the reason of a refusal (rule `source`) or null.
 * A position whose opening signal is known closes only on an exit of the same source (a copied
 * sell of wallet B never closes what wallet A's buy opened). One whose opening signal is unknown
 * (opened without one, or the signal was deleted) closes on an exit of any source the agent trades.
 */
export function exitSourceRefusal(
  sources: readonly string[],
  exit: SignalOrigin,
  opener: SignalOrigin | null,
): string | null {
  if (opener === null) return sourceRefusal(sources, exit);
  if (sameSource(exit, opener)) return null;
  return `The position was opened from ${describe(opener)}; an exit of ${describe(exit)} does not close it`;
}
