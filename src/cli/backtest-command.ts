import type { OptionSpec } from "./args.ts";

// The backtest command as src/cli.ts registers it. Its run lives in ./backtest.ts, which loads
// the market clients and the strategy engine: imported when the command runs, so that `serve`
// and the other commands do not evaluate it at start (docs/decisions.md "Performance",
// "Start-up and memory").

export const backtestCommand = {
  usage:
    "trading-agent backtest --config FILE [--from DATE] [--to DATE] [--source NAME] [--email EMAIL] [--out PATH] [--env-file PATH]",
  summary: "replay your signals through strategy variants and compare them",
  help: `Replays a user's signals in DATABASE_PATH over the recorded (or imported) 1-minute price bars
through each variant's configuration, with the engine's own rules, exactly as POST /api/v1/backtests
does, and prints the variants side by side. Nothing is stored; the service may be running.

  --config FILE     JSON: [{"name": "tight", "config": {"stopLoss": {"percentage": 10}}}, ...] or
                    {"initialSol": 10, "signals": {"signalType": "buy", "minStrength": 3},
                     "variants": [...]}; config is a partial agent configuration (up to 50 variants)
  --from DATE       only signals created at or after DATE (ISO 8601)
  --to DATE         only signals created at or before DATE
  --source NAME     only signals of this source
  --email EMAIL     whose signals (default ADMIN_EMAIL)
  --out PATH        where the trades CSV goes (default backtest-trades.csv)

Exit codes: 0 ok, 1 runtime failure (unknown user, database error), 2 bad usage or a bad variant.`,
  options: [
    { name: "config", value: true },
    { name: "from", value: true },
    { name: "to", value: true },
    { name: "source", value: true },
    { name: "email", value: true },
    { name: "out", value: true },
  ] as OptionSpec[],
  async execute(args: {
    options: Map<string, string | true>;
    io: { out(text: string): void; err(text: string): void; env: Record<string, string | undefined> };
  }): Promise<number> {
    const { executeBacktest } = await import("./backtest.ts");
    return executeBacktest(args);
  },
};
