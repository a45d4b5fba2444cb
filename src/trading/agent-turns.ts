// Signals are processed concurrently (docs/decisions.md "Performance"), but two
// signals never race for one agent's balance or positions: each agent takes the signals in the
// order they were taken up. A run reserves its turn with every agent at once, synchronously,
// before its first await, so reservations follow the queue's order; it then acts for an agent
// when that agent's earlier turns are released.

export interface AgentTurn {
  /** Resolves when every earlier reservation of this agent has been released. */
  ready: Promise<void>;
  /** Ends this turn (idempotent). */
  release(): void;
}

export class AgentTurns {
  private readonly tails = new Map<string, Promise<void>>();

  reserve(agentId: string): AgentTurn {
    const previous = this.tails.get(agentId) ?? Promise.resolve();
    let release!: () => void;
    const mine = new Promise<void>((r) => (release = r));
    const tail = previous.then(() => mine);
    this.tails.set(agentId, tail);
    let done = false;
    return {
      ready: previous,
      release: () => {
        if (done) return;
        done = true;
        release();
        // Once our tail ran out, nobody waits behind it: forget the agent.
        void tail.then(() => {
          if (this.tails.get(agentId) === tail) this.tails.delete(agentId);
        });
      },
    };
  }

  /** Agents with a reservation outstanding. */
  get size(): number {
    return this.tails.size;
  }
}
