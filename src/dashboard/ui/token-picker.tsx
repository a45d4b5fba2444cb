import { useEffect, useState } from "preact/hooks";
import { get } from "./api.ts";
import { short } from "./format.ts";
import { rememberTokens, resolveToken, tokenSymbols } from "./names.ts";
import type { Signal } from "./types.ts";

// A token list field (filters.allowedTokens / blockedTokens) picked by symbol: the tokens the
// user's signals named are offered by symbol, each with its mint, and the list shows symbols as
// chips. The configuration still holds mint addresses: a symbol is not unique (anyone can mint a
// token called BONK), so a symbol that names several mints must be picked from the list, which
// shows each mint; a pasted mint address is taken as it is.

let known: Promise<void> | null = null;

/** The user's tokens by symbol, loaded once per page from the latest signals. */
function loadKnownTokens(): Promise<void> {
  known ??= get<Signal[]>("/trading-signals?limit=1000")
    .then((signals) => rememberTokens(signals))
    .catch(() => {
      known = null;
    });
  return known;
}

const toList = (text: string) => text.split(/[\s,]+/).filter(Boolean);

export function TokenPicker(props: {
  id: string;
  label: string;
  value: string;
  describedBy: string;
  onChange: (v: string) => void;
}) {
  const [entry, setEntry] = useState("");
  const [problem, setProblem] = useState("");
  useEffect(() => void loadKnownTokens(), []);
  const symbols = tokenSymbols.value;
  const list = toList(props.value);
  const add = async () => {
    if (!entry.trim()) return;
    // A symbol typed before the known tokens arrived is resolved once they have.
    await loadKnownTokens();
    const r = resolveToken(entry, tokenSymbols.value);
    if ("error" in r) {
      setProblem(r.error);
      return;
    }
    setProblem("");
    setEntry("");
    if (!list.includes(r.mint)) props.onChange([...list, r.mint].join("\n"));
  };
  const listId = `${props.id}-options`;
  return (
    <div class="token-picker">
      {list.length > 0 && (
        <ul class="chips" aria-label={`${props.label} chosen`}>
          {list.map((mint) => {
            const name = symbols.get(mint) ?? short(mint);
            return (
              <li key={mint} title={mint}>
                <strong>{name}</strong> <code class="muted small">{short(mint, 4)}</code>
                <button
                  type="button"
                  aria-label={`Remove ${name} from ${props.label}`}
                  onClick={() => props.onChange(list.filter((m) => m !== mint).join("\n"))}
                >
                  ×
                </button>
              </li>
            );
          })}
        </ul>
      )}
      <div class="row">
        <input
          id={props.id}
          type="text"
          list={listId}
          autocomplete="off"
          placeholder="Symbol or mint address"
          aria-describedby={props.describedBy}
          value={entry}
          onInput={(e) => setEntry(e.currentTarget.value)}
          onKeyDown={(e) => {
            if (e.key === "Enter") {
              e.preventDefault();
              void add();
            }
          }}
        />
        <button type="button" onClick={() => void add()}>
          Add to {props.label}
        </button>
      </div>
      <datalist id={listId}>
        {[...symbols].map(([mint, symbol]) => (
          <option key={mint} value={`${symbol} ${mint}`} />
        ))}
      </datalist>
      {problem && (
        <small class="field-error" role="alert">
          {problem}
        </small>
      )}
    </div>
  );
}
