import "uplot/dist/uPlot.min.css";
import "./style.css";
import "./parts.css";
import "./settings.css";
import "./depth.css";
import "./trust.css";
import "./security.css";
import { render } from "preact";
import { useEffect } from "preact/hooks";
import { logout, resumeSession, session, sessionChecked } from "./api.ts";
import { forgetStoredFeed } from "./feed-history.ts";
import { startStream, stopStream, streamState } from "./live.ts";
import { AgentPage } from "./pages/agent.tsx";
import { ApiKeysPage } from "./pages/api-keys.tsx";
import { AuditLogPage } from "./pages/audit-log.tsx";
import { CopyTradingPage } from "./pages/copy-trading.tsx";
import { LoginPage } from "./pages/login.tsx";
import { OverviewPage } from "./pages/overview.tsx";
import { ReportsPage } from "./pages/reports.tsx";
import { RiskLimitsPage } from "./pages/risk-limits.tsx";
import { SecurityPage } from "./pages/security.tsx";
import { SettingsPage } from "./pages/settings.tsx";
import { SignalHooksPage } from "./pages/signal-hooks.tsx";
import { SignalDetailPage, SignalsPage } from "./pages/signals.tsx";
import { StrategyLabPage } from "./pages/strategy-lab.tsx";
import { TradingBanners, TradingSwitch } from "./pages/trading-controls.tsx";
import { href, route } from "./router.ts";
import { followTradingStatus, stopTradingStatus, tradingStatus } from "./trading-status.ts";

// The dashboard: one page, hash routes, Preact with signals. Pages fetch from
// /api/v1 with the access token; live changes arrive on the event stream (live.ts).

function Nav() {
  const [top] = route.value;
  const link = (to: string, label: string, active: boolean) => (
    <a href={to} aria-current={active ? "page" : undefined}>
      {label}
    </a>
  );
  return (
    <header class="topbar">
      <nav aria-label="Main">
        {link(href(), "Overview", !top || top === "agents")}
        {link(href("signals"), "Signals", top === "signals")}
        {link(href("reports"), "Reports", top === "reports")}
        {link(href("copy-trading"), "Copy trading", top === "copy-trading")}
        {link(href("signal-hooks"), "Signal hooks", top === "signal-hooks")}
        {link(href("lab"), "Strategy lab", top === "lab")}
        {link(href("api-keys"), "API keys", top === "api-keys")}
        {link(href("notifications"), "Notifications", top === "notifications")}
        {link(href("risk-limits"), "Risk limits", top === "risk-limits")}
        {link(href("security"), "Security", top === "security")}
        {link(href("audit-log"), "Audit log", top === "audit-log")}
      </nav>
      <div class="row">
        {/* The browsable reference of /api/v1 (served by this service, nothing loads from outside). */}
        <a class="header-link" href="/api/v1/docs" target="_blank" rel="noopener">
          API reference
        </a>
        {tradingStatus.value?.demoMarket && (
          <span class="badge warn" title="DEMO_MARKET: made-up tokens and prices, no chain, nothing real">
            Demo market
          </span>
        )}
        <TradingSwitch />
        {/* The event stream's state (not live trading: the banner says when that is on). */}
        <span class={`stream ${streamState.value}`} title="Event stream">
          {streamState.value === "open"
            ? "Connected"
            : streamState.value === "off"
              ? "Offline"
              : streamState.value === "connecting"
                ? "Connecting…"
                : "Reconnecting…"}
        </span>
        <span class="muted hide-narrow">{session.value?.user.email}</span>
        <button type="button" onClick={() => void logout()}>
          Log out
        </button>
      </div>
    </header>
  );
}

function Page() {
  const [top, id, tab, sub] = route.value;
  if (top === "agents" && id) return <AgentPage id={id} tab={tab ?? "positions"} sub={sub} />;
  if (top === "signals" && id) return <SignalDetailPage id={id} />;
  if (top === "signals") return <SignalsPage />;
  if (top === "api-keys") return <ApiKeysPage />;
  if (top === "lab") return <StrategyLabPage id={id} />;
  if (top === "copy-trading") return <CopyTradingPage />;
  if (top === "signal-hooks") return <SignalHooksPage />;
  if (top === "notifications") return <SettingsPage />;
  if (top === "risk-limits") return <RiskLimitsPage />;
  if (top === "reports") return <ReportsPage />;
  if (top === "security") return <SecurityPage />;
  if (top === "audit-log") return <AuditLogPage />;
  return <OverviewPage />;
}

function App() {
  const loggedIn = session.value !== null;
  useEffect(() => {
    if (loggedIn) {
      startStream();
      followTradingStatus();
    } else {
      stopStream();
      stopTradingStatus();
      forgetStoredFeed();
    }
  }, [loggedIn]);
  if (!sessionChecked.value) return <p class="muted center">Loading…</p>;
  if (!loggedIn) return <LoginPage />;
  return (
    <>
      <Nav />
      <main>
        <TradingBanners />
        <Page />
      </main>
    </>
  );
}

const root = document.getElementById("app");
if (root) {
  root.textContent = "";
  render(<App />, root);
  void resumeSession();
}
