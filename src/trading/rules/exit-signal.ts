// PRODUCT.md §4: `sell`, `exit` and `close`, in any letter case, are exit signals (agents holding
// the token close that position with closeReason `signal`); every other type is an entry signal.
// The word must match exactly apart from case: " sell" or "sell-all" are entry signals.

const EXIT_TYPES = new Set(["sell", "exit", "close"]);

export const isExitSignal = (signalType: string): boolean => EXIT_TYPES.has(signalType.toLowerCase());
