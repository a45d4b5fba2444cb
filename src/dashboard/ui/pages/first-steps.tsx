import { demoAddress } from "../../../market/demo/tokens.ts";
import { Section } from "../components.tsx";
import { href } from "../router.ts";
import { tradingStatus } from "../trading-status.ts";

// The overview's empty state (issue 44 item 6; docs/decisions/operator-experience-v.md "The
// first minute"): a user with no agent yet is walked through the four steps to a first trade,
// the signal as the curl line a bot would send. On the demo market the example token is one of
// its made-up ones (DemoFrog…), which the demo market prices; otherwise BONK.

const BONK = "DezXAZ8z7PnrnRJjz3wXBoRgixCa6xjnB7YaB1pPB263";

function curlLine(origin: string, demo: boolean): string {
  const [tokenAddress, symbol] = demo ? [demoAddress("Frog"), "FROG"] : [BONK, "BONK"];
  const body = JSON.stringify({ tokenAddress, symbol, signalType: "buy", signalStrength: 4 });
  return [
    `curl -X POST ${origin}/api/v1/trading-signals \\`,
    `  -H "Content-Type: application/json" -H "X-API-Key: YOUR_KEY" \\`,
    `  -d '${body}'`,
  ].join("\n");
}

export function FirstSteps() {
  const demo = tradingStatus.value?.demoMarket === true;
  return (
    <Section title="First steps">
      <ol class="steps">
        <li>
          <strong>Create an API key</strong> with the <code>signals</code> scope on the{" "}
          <a href={href("api-keys")}>API keys</a> page; it is shown once.
        </li>
        <li>
          <strong>Create an agent</strong> with the form above: it gets a simulation wallet with virtual SOL.
        </li>
        <li>
          <strong>Switch its automation on</strong> (Simulation automation, on its card or its page): without it the
          agent does not trade on signals.
        </li>
        <li>
          <strong>Post a signal</strong> with your key, as a bot would:
          <pre class="code">{curlLine(location.origin, demo)}</pre>
          The agent buys, and the position appears on its page.
        </li>
      </ol>
    </Section>
  );
}
