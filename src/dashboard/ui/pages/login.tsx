import { useState } from "preact/hooks";
import { login } from "../api.ts";
import { ErrorNote } from "../components.tsx";

export function LoginPage() {
  const [email, setEmail] = useState("");
  const [password, setPassword] = useState("");
  const [remember, setRemember] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);

  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      await login(email, password, remember);
    } catch (err) {
      setError(err);
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
