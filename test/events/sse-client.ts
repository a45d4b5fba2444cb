// A small Server-Sent Events reader over fetch, for tests and the latency benchmark: frames are
// parsed as they arrive, every wait is bounded.

export interface SseFrame {
  id?: string;
  event?: string;
  data?: string;
  retry?: string;
  comments: string[];
  /** performance.now() when the bytes holding the end of this frame were read. */
  receivedAt: number;
}

/** What the client needs of a stream reader (Bun's, node's and the DOM's types all fit). */
export interface ChunkReader {
  read(): Promise<{ done: boolean; value?: Uint8Array }>;
  cancel(): Promise<void>;
}

export class SseClient {
  private buffer = "";
  private readonly frames: SseFrame[] = [];
  private ended = false;
  private pending: Promise<{ done: boolean; value?: Uint8Array }> | undefined;
  private readonly decoder = new TextDecoder();

  constructor(
    readonly response: Response,
    private readonly reader: ChunkReader,
  ) {}

  get status(): number {
    return this.response.status;
  }

  /** The next frame, or an error after `timeoutMs` (or when the stream ends). */
  async next(timeoutMs = 20_000): Promise<SseFrame> {
    const deadline = performance.now() + timeoutMs;
    while (this.frames.length === 0) {
      if (this.ended) throw new Error("event stream ended");
      const left = deadline - performance.now();
      if (left <= 0) throw new Error(`no event-stream frame within ${timeoutMs} ms`);
      await this.readChunk(left);
    }
    return this.frames.shift()!;
  }

  /** Reads frames until one matches; returns it and the frames read before it. */
  async until(match: (f: SseFrame) => boolean, timeoutMs = 20_000): Promise<{ frame: SseFrame; before: SseFrame[] }> {
    const deadline = performance.now() + timeoutMs;
    const before: SseFrame[] = [];
    for (;;) {
      const f = await this.next(Math.max(1, deadline - performance.now()));
      if (match(f)) return { frame: f, before };
      before.push(f);
    }
  }

  /** Resolves true once the server ends the stream, false after `timeoutMs`. */
  async endsWithin(timeoutMs: number): Promise<boolean> {
    const deadline = performance.now() + timeoutMs;
    while (!this.ended) {
      const left = deadline - performance.now();
      if (left <= 0) return false;
      try {
        await this.readChunk(left);
      } catch {
        return this.ended;
      }
    }
    return true;
  }

  async close(): Promise<void> {
    await this.reader.cancel().catch(() => {});
  }

  private async readChunk(timeoutMs: number): Promise<void> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<"timeout">((resolve) => {
      timer = setTimeout(() => resolve("timeout"), timeoutMs);
    });
    try {
      // A read that lost the race stays pending and is reused: a second read() would lose its chunk.
      this.pending ??= this.reader.read();
      const r = await Promise.race([this.pending, timeout]);
      if (r === "timeout") return;
      this.pending = undefined;
      if (r.done || !r.value) {
        this.ended = true;
        return;
      }
      const at = performance.now();
      this.buffer += this.decoder.decode(r.value, { stream: true });
      let end: number;
      while ((end = this.buffer.indexOf("\n\n")) >= 0) {
        const block = this.buffer.slice(0, end);
        this.buffer = this.buffer.slice(end + 2);
        this.frames.push(parseFrame(block, at));
      }
    } catch {
      this.ended = true;
    } finally {
      clearTimeout(timer);
    }
  }
}

function parseFrame(block: string, receivedAt = 0): SseFrame {
  const f: SseFrame = { comments: [], receivedAt };
  for (const line of block.split("\n")) {
    if (line.startsWith(":")) {
      f.comments.push(line.slice(1).trim());
      continue;
    }
    const i = line.indexOf(":");
    const field = i < 0 ? line : line.slice(0, i);
    const value = i < 0 ? "" : line.slice(i + 1).replace(/^ /, "");
    if (field === "id" || field === "event" || field === "retry") f[field] = value;
    else if (field === "data") f.data = f.data === undefined ? value : `${f.data}\n${value}`;
  }
  return f;
}

/** Opens a stream; the caller checks `status` (an error answer is not an event stream). */
export async function openSse(url: string, headers: Record<string, string> = {}): Promise<SseClient> {
  const res = await fetch(url, { headers: { accept: "text/event-stream", ...headers } });
  if (!res.body) throw new Error("no body");
  return new SseClient(res, res.body.getReader());
}
