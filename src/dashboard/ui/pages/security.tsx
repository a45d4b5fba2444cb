import type { ComponentChildren } from "preact";
import { useState } from "preact/hooks";
import { api, get, saveBlob, session } from "../api.ts";
import { CodeField } from "../code-input.tsx";
import { ErrorNote, Section, useLoad } from "../components.tsx";
import { QrCode } from "../qr-code.tsx";

// Security (`#/security`): the second factor (PRODUCT.md §2). Turning it on is setup (a new
// secret, nothing changes yet) → a code from the app → enable, which answers the ten recovery
// codes this once; turning it off takes a current code or a recovery code. Decisions in
// docs/decisions/box-on-the-internet.md "Dashboard".

interface Setup {
  secret: string;
  otpauthUrl: string;
}

/** The secret in groups of four, as authenticator apps' "enter a key" screens show it. */
const grouped = (secret: string) => secret.replace(/(.{4})(?=.)/g, "$1 ");

function CodeForm(props: { label: string; hint: string; submit: string; onCode: (code: string) => Promise<unknown> }) {
  const [code, setCode] = useState("");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  return (
    <form
      onSubmit={async (e) => {
        e.preventDefault();
        setBusy(true);
        setError(null);
        try {
          await props.onCode(code);
        } catch (err) {
          setError(err);
          setCode("");
        } finally {
          setBusy(false);
        }
      }}
    >
      <CodeField label={props.label} value={code} onInput={setCode} />
      <p class="muted small">{props.hint}</p>
      <ErrorNote error={error} />
      <button type="submit" class="primary" disabled={busy}>
        {props.submit}
      </button>
    </form>
  );
}

function RecoveryCodes(props: { codes: string[]; onDone: () => void }) {
  const [copied, setCopied] = useState<"no" | "yes" | "failed">("no");
  const email = session.value?.user.email ?? "";
  const text = `Trading agents recovery codes for ${email}\nEach code logs in once in place of the app's code.\n\n${props.codes.join("\n")}\n`;
  return (
    <div class="notice" role="status">
      <p>
        <strong>Save these recovery codes now.</strong> They are shown only once. Each one logs in once (or turns the
        second factor off) when your phone is not at hand; keep them somewhere other than the phone.
      </p>
      <ol class="recovery-codes" aria-label="Recovery codes">
        {props.codes.map((c) => (
          <li key={c}>
            <code>{c}</code>
          </li>
        ))}
      </ol>
      <div class="row wrap">
        <button type="button" onClick={() => saveBlob(new Blob([text], { type: "text/plain" }), "recovery-codes.txt")}>
          Download codes
        </button>
        <button
          type="button"
          onClick={async () => {
            try {
              await navigator.clipboard.writeText(text);
              setCopied("yes");
            } catch {
              setCopied("failed");
            }
          }}
        >
          {copied === "yes" ? "Copied" : "Copy codes"}
        </button>
        <button type="button" class="primary" onClick={props.onDone}>
          I have saved them
        </button>
        {copied === "failed" && <span class="muted small">Copying is blocked here: download them instead.</span>}
      </div>
    </div>
  );
}

function Enrol(props: { setup: Setup; onEnabled: (codes: string[]) => void; onCancel: () => void }) {
  const { setup } = props;
  return (
    <div class="stack enrol">
      <p>Scan this code with an authenticator app (any app for TOTP codes), then type the 6-digit code it shows.</p>
      <QrCode text={setup.otpauthUrl} label="QR code for your authenticator app" />
      {/* Text that wraps at phone width (a read-only input would cut it); one tap selects it all. */}
      <p>
        Or enter this key in the app:
        <code class="secret-key">{grouped(setup.secret)}</code>
      </p>
      <CodeForm
        label="Code from the app"
        hint="Two-factor login starts only once this code is confirmed."
        submit="Turn on"
        onCode={async (code) => {
          const r = await api<{ recoveryCodes: string[] }>("POST", "/auth/2fa/enable", { code });
          props.onEnabled(r.recoveryCodes);
        }}
      />
      <div>
        <button type="button" onClick={props.onCancel}>
          Cancel
        </button>
      </div>
    </div>
  );
}

function TwoFactorSection() {
  const me = useLoad(() => get<{ twoFactorEnabled: boolean }>("/auth/me"), []);
  const [setup, setSetup] = useState<Setup | null>(null);
  const [codes, setCodes] = useState<string[] | null>(null);
  const [turningOff, setTurningOff] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const on = me.data?.twoFactorEnabled === true;

  const start = async () => {
    setError(null);
    try {
      setSetup(await api<Setup>("POST", "/auth/2fa/setup"));
    } catch (err) {
      setError(err);
    }
  };

  let body: ComponentChildren;
  if (codes) {
    // Shown until the user says they are saved; leaving the page forgets them (they are in no store).
    body = <RecoveryCodes codes={codes} onDone={() => setCodes(null)} />;
  } else if (setup) {
    body = (
      <Enrol
        setup={setup}
        onCancel={() => setSetup(null)}
        onEnabled={(next) => {
          setSetup(null);
          setCodes(next);
          me.reload();
        }}
      />
    );
  } else if (on && turningOff) {
    body = (
      <div class="stack">
        <CodeForm
          label="Current code or a recovery code"
          hint="After this, the password alone logs in."
          submit="Turn off"
          onCode={async (code) => {
            await api("POST", "/auth/2fa/disable", { code });
            setTurningOff(false);
            me.reload();
          }}
        />
        <div>
          <button type="button" onClick={() => setTurningOff(false)}>
            Cancel
          </button>
        </div>
      </div>
    );
  } else if (on) {
    body = (
      <button type="button" class="danger" onClick={() => setTurningOff(true)}>
        Turn off two-factor login
      </button>
    );
  } else if (me.data) {
    body = (
      <button type="button" class="primary" onClick={() => void start()}>
        Turn on two-factor login
      </button>
    );
  }

  return (
    <Section title="Two-factor login">
      <ErrorNote error={me.error ?? error} />
      {me.data && (
        <p aria-live="polite">
          {on ? (
            <>
              <span class="badge ok">On</span> Login asks for a code from your authenticator app after the password.
            </>
          ) : (
            <>
              <span class="badge">Off</span> The password alone logs in. A second factor keeps a stolen password from
              being a stolen wallet.
            </>
          )}
        </p>
      )}
      {body}
    </Section>
  );
}

export function SecurityPage() {
  return (
    <div class="stack security">
      <TwoFactorSection />
    </div>
  );
}
