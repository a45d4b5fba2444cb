import { useState } from "preact/hooks";

// A secret the server shows once (a webhook's signing secret): a read-only field, a copy button,
// and "Done", which forgets it. Nothing keeps it after that.

export function SecretOnce(props: { label: string; secret: string; copyLabel: string; onDone: () => void }) {
  const [copied, setCopied] = useState<"no" | "yes" | "failed">("no");
  return (
    <div class="notice" role="status">
      <p>Copy this secret now. It is shown only once.</p>
      <label>
        {props.label}
        <input readOnly value={props.secret} onFocus={(e) => e.currentTarget.select()} />
      </label>
      <div class="row wrap">
        <button
          type="button"
          onClick={async () => {
            try {
              await navigator.clipboard.writeText(props.secret);
              setCopied("yes");
            } catch {
              setCopied("failed");
            }
          }}
        >
          {copied === "yes" ? "Copied" : props.copyLabel}
        </button>
        <button type="button" onClick={props.onDone}>
          Done
        </button>
        {copied === "failed" && <span class="muted small">Copying is blocked here: select the field and copy.</span>}
      </div>
    </div>
  );
}
