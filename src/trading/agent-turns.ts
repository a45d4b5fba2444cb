// Signals are processed concurrently (docs/decisions.md "Performance"), but two
// signals never race for one agent's balance or positions: each agent takes the signals in the
// order they were taken up. A run reserves its turn with every agent at once, synchronously,
// before its first await, so reservations follow the queue's order; it then acts for an agent
// when that agent's earlier turns are released.
//
// A turn whose trade is in flight (a live swap waiting to land) says so (`trading()`): the turns
// waiting behind it are then parked — waiting for a trade, not for a decision — and the queue's
// lag stops counting them (docs/decisions/under-load.md "Trades in flight"). They still take their
// turn in order afterwards, where a buy too old by then is judged stale.

interface AgentTurn {
  /** Resolves when every earlier reservation of this agent has been released. */
  ready: Promise<void>;
  /** This turn's trade is in flight: the turns waiting behind it are parked. */
  trading(): void;
  /** Ends this turn (idempotent). */
  release(): void;
}

interface Slot {
  start: () => void;
  /** Told once when the slot waits behind a trade in flight. */
  parked: (() => void) | null;
}

/** One agent's turns in order: the first holds the turn. */
interface Lane {
  slots: Slot[];
  /** The holder's trade is in flight. */
  trading: boolean;
}

const READY: Promise<void> = Promise.resolve();

export class AgentTurns {
  private readonly lanes = new Map<string, Lane>();

  /**
   * One run's turns with each of `agentIds`, reserved now (synchronously, so in queue order);
   * `decided` is called once every agent is decided, trading or parked.
   */
  forRun(agentIds: readonly string[], decided: () => void): RunTurns {
    return new RunTurns(this, agentIds, decided);
  }

  /** Reserves the agent's next turn; `parked` is called (once) if it ever waits behind a trade in flight. */
  reserve(agentId: string, parked?: () => void): AgentTurn {
    let lane = this.lanes.get(agentId);
    if (!lane) this.lanes.set(agentId, (lane = { slots: [], trading: false }));
    const own = lane;
    let start!: () => void;
    const slot: Slot = { start: () => start(), parked: parked ?? null };
    const ready = own.slots.length === 0 ? READY : new Promise<void>((r) => (start = r));
    own.slots.push(slot);
    if (own.trading && own.slots.length > 1) park(slot);
    let done = false;
    return {
      ready,
      trading: () => {
        if (done || own.slots[0] !== slot || own.trading) return;
        own.trading = true;
        for (let i = 1; i < own.slots.length; i++) park(own.slots[i] as Slot);
      },
      release: () => {
        if (done) return;
        done = true;
        const at = own.slots.indexOf(slot);
        if (at < 0) return;
        own.slots.splice(at, 1);
        if (at > 0) return; // released before its turn came: nobody waited for it
        own.trading = false;
        const next = own.slots[0];
        if (next) next.start();
        else if (this.lanes.get(agentId) === own) this.lanes.delete(agentId);
      },
    };
  }

  /** Agents with a reservation outstanding. */
  get size(): number {
    return this.lanes.size;
  }
}

function park(slot: Slot): void {
  const p = slot.parked;
  slot.parked = null;
  p?.();
}

/** A run's turns with its agents (AgentTurns.forRun). */
export class RunTurns {
  private readonly turns: AgentTurn[];
  private readonly told: Uint8Array;
  private left: number;

  constructor(
    owner: AgentTurns,
    agentIds: readonly string[],
    private readonly decided: () => void,
  ) {
    this.told = new Uint8Array(agentIds.length);
    this.left = agentIds.length;
    this.turns = agentIds.map((id, i) => owner.reserve(id, () => this.agentDecided(i)));
    if (this.left === 0) decided();
  }

  /** Agent `i` is decided, trading or parked (told once). */
  private agentDecided(i: number): void {
    if (this.told[i]) return;
    this.told[i] = 1;
    if (--this.left === 0) this.decided();
  }

  /**
   * Runs `act` for every agent in its turn, all agents at once; each turn is released after it.
   * `act` calls its `trading` argument when the agent's trade goes in flight: from then on the
   * turn holds only a trade, and the agent's turns waiting behind it are parked.
   */
  async each<A>(agents: readonly A[], act: (a: A, trading: () => void) => Promise<void>): Promise<void> {
    await Promise.all(
      agents.map(async (a, i) => {
        const turn = this.turns[i] as AgentTurn;
        try {
          await turn.ready;
          await act(a, () => {
            turn.trading();
            this.agentDecided(i);
          });
        } finally {
          this.agentDecided(i);
          turn.release();
        }
      }),
    );
  }

  /** Releases every turn (those never taken included) and counts each agent decided. */
  release(): void {
    for (let i = 0; i < this.turns.length; i++) {
      this.agentDecided(i);
      (this.turns[i] as AgentTurn).release();
    }
  }
}
