import { useState } from "preact/hooks";
import { CODE_REQUIRED } from "../../../auth/two-factor-shape.ts";
import { ApiError, login } from "../api.ts";
import { CodeField } from "../code-input.tsx";
import { ErrorNote } from "../components.tsx";

// The login form. With the second factor on, the service answers a right password without a code
// with 401 "Two-factor code required": the form then asks for the code and sends the three
// together (docs/decisions/box-on-the-internet.md "Dashboard"). A wrong code, a lockout (423) and
// the rate limit (429) are shown as the service words them.

export function LoginPage() {
  const [email, setEmail] = useState("");
  const [password, setPassword] = useState("");
  const [remember, setRemember] = useState(false);
  const [askCode, setAskCode] = useState(false);
  const [code, setCode] = useState("");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);

  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      await login(email, password, remember, askCode ? code.trim() : undefined);
    } catch (err) {
      if (err instanceof ApiError && err.status === 401 && err.message === CODE_REQUIRED && !askCode) {
        // Not a failure to show in red: the password was right, the code is the next step.
        setAskCode(true);
      } else {
        setError(err);
        if (askCode) setCode("");
      }
    } finally {
      setBusy(false);
    }
  };

  return (
    <main class="login">
      <form class="card" onSubmit={submit} aria-labelledby="login-title">
        <h1 id="login-title">Trading agents</h1>
        <label>
          Email
          <input
            type="email"
            autocomplete="username"
            required
            value={email}
            onInput={(e) => setEmail(e.currentTarget.value)}
          />
        </label>
        <label>
          Password
          <input
            type="password"
            autocomplete="current-password"
            required
            value={password}
            onInput={(e) => setPassword(e.currentTarget.value)}
          />
        </label>
        {askCode && (
          <>
            {/* Focused: it appears because the user just submitted, and it is the next thing to type. */}
            <CodeField label="Two-factor code" value={code} onInput={setCode} autoFocus describedBy="code-hint" />
            <p id="code-hint" class="muted small">
              The 6-digit code from your authenticator app, or one of your recovery codes.
            </p>
          </>
        )}
        <label class="check">
          <input type="checkbox" checked={remember} onChange={(e) => setRemember(e.currentTarget.checked)} />
          Remember me
        </label>
        <ErrorNote error={error} />
        <button type="submit" class="primary" disabled={busy}>
          Log in
        </button>
      </form>
    </main>
  );
}
