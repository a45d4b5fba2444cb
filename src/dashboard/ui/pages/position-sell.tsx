import { api } from "../api.ts";
import { ConfirmButton } from "../components.tsx";
import { fmtNum, fmtPct, fmtSol } from "../format.ts";
import type { Position } from "../types.ts";

// The sell buttons of a position's page (issue 44 item 5): 25 %, 50 % or 100 % of what the
// position holds now, each after a confirmation, through POST /agent-positions/:agentId/:id/sell
// — the exit path a take-profit sale takes; 100 % is the manual close. The answer is shown and
// the page reloads the position (its remaining tokens, the trades list).

const SHARES = [25, 50, 100] as const;

interface SellAnswer {
  closed: boolean;
  tokensSold?: string;
  proceedsSol?: string;
  remainingAmount: string;
  profitLossSol?: number;
  changePercent?: number;
}

/** What the page says after a sale. */
function soldText(p: Position, share: number, r: SellAnswer): string {
  if (r.closed) return `${p.tokenSymbol} closed: P/L ${fmtSol(r.profitLossSol)} (${fmtPct(r.changePercent)})`;
  return `Sold ${share} %: ${fmtNum(r.tokensSold)} ${p.tokenSymbol} for ${fmtSol(r.proceedsSol)}; ${fmtNum(r.remainingAmount)} left`;
}

export function SellButtons(props: { agentId: string; p: Position; onSold: (text: string) => void }) {
  const { agentId, p, onSold } = props;
  const held = p.takeProfit.remainingAmount;
  return (
    <div class="row wrap">
      {SHARES.map((share) => (
        <ConfirmButton
          key={share}
          label={`Sell ${share} %`}
          confirmLabel={`Confirm sell ${share} %`}
          question={
            share === 100
              ? `Sell all ${fmtNum(held)} ${p.tokenSymbol} and close the position?`
              : `Sell ${share} % of ${p.tokenSymbol} (about ${fmtNum((held * share) / 100)} of ${fmtNum(held)})?`
          }
          danger={share === 100}
          onConfirm={async (key) => {
            // The confirmation's key: a retry after a timeout answers the first sale, never sells twice.
            const r = await api<SellAnswer>(
              "POST",
              `/agent-positions/${agentId}/${p.id}/sell`,
              { percent: share },
              { "Idempotency-Key": key },
            );
            onSold(soldText(p, share, r));
          }}
        />
      ))}
    </div>
  );
}
