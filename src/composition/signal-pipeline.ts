import type { ApiKeyService } from "../auth/api-keys.ts";
import type { Clock } from "../clock.ts";
import type { DatabaseHandle } from "../db/client.ts";
import type { GroupCommit } from "../db/group-commit.ts";
import { TradingAgentRepository } from "../db/repositories/trading-agents.ts";
import type { EventBus } from "../events/bus.ts";
import type { Logger } from "../logger.ts";
import type { Metrics } from "../metrics/metrics.ts";
import { SignalIntake } from "../signals/signal-intake.ts";
import { SignalQueue } from "../signals/signal-queue.ts";
import type { SignalService } from "../signals/signal-service.ts";
import type { SignalProcessor } from "../trading/signal-processor.ts";

interface Deps {
  database: DatabaseHandle;
  clock: Clock;
  logger: Logger;
  events: EventBus;
  metrics: Metrics;
  apiKeys: ApiKeyService;
  signals: SignalService;
  groupCommit: GroupCommit;
  processor: SignalProcessor;
}

/**
 * The signal pipeline: POST /trading-signals → intake → queue → processor. Each stage is given
 * the next one when it is built, so it is built from its end: the processor (given), the queue
 * that feeds it, the intake that fills the queue. Nothing is re-bound later.
 */
export function createSignalPipeline(d: Deps): { signalQueue: SignalQueue; signalIntake: SignalIntake } {
  const signalQueue = new SignalQueue((ids, decided) => d.processor.processBatch(ids, decided), d.logger, d.clock);
  const signalAgents = new TradingAgentRepository(d.database.sqlite);
  const signalIntake = new SignalIntake({
    events: d.events,
    queue: signalQueue,
    logger: d.logger,
    signals: d.signals,
    commits: d.groupCommit,
    recordKeyUse: (id, count) => d.apiKeys.recordUse(id, count),
    hasAgents: (userId) => signalAgents.hasAgents(userId),
    recovery: true,
  });
  // PRODUCT.md §6 "signals received": every signal accepted by POST /trading-signals (not replays).
  signalIntake.onAccepted(() => d.metrics.signalsReceived.inc());
  return { signalQueue, signalIntake };
}
