// Requests a test holds: the next request of a name waits, before it is answered, until the test
// releases it; `reached` resolves when it arrives. Lets a test act while a request is in flight,
// without sleeps (the fake market's routes, the fake Solana node's methods).

export interface Hold {
  reached: Promise<void>;
  release(): void;
}

export class Holds {
  private readonly waiting = new Map<string, Array<{ arrived: () => void; released: Promise<void> }>>();

  /** The next request of `name` waits for release(). */
  add(name: string): Hold {
    let arrived!: () => void;
    let release!: () => void;
    const reached = new Promise<void>((r) => (arrived = r));
    const released = new Promise<void>((r) => (release = r));
    const q = this.waiting.get(name) ?? [];
    q.push({ arrived: () => arrived(), released });
    this.waiting.set(name, q);
    return { reached, release: () => release() };
  }

  /** A request of `name` arrived: the promise it waits for, or null when it is not held. */
  take(name: string): Promise<void> | null {
    const held = this.waiting.get(name)?.shift();
    if (!held) return null;
    held.arrived();
    return held.released;
  }
}
