// The labelled field for a second-factor code, on the login form and the Security page: six digits
// from the app or a recovery code (xxxxx-xxxxx), so a text field, not a numeric one.

export function CodeField(props: {
  label: string;
  value: string;
  onInput: (value: string) => void;
  autoFocus?: boolean;
  describedBy?: string;
}) {
  return (
    <label>
      {props.label}
      <input
        autocomplete="one-time-code"
        autocapitalize="off"
        spellcheck={false}
        required
        maxLength={64}
        // biome-ignore lint/a11y/noAutofocus: only where the field appears because the user just submitted
        autoFocus={props.autoFocus}
        aria-describedby={props.describedBy}
        value={props.value}
        onInput={(e) => props.onInput(e.currentTarget.value)}
      />
    </label>
  );
}
