// The HTTP server a fake runs on 127.0.0.1 (a free port), shared by the fakes that answer every
// request with their own `handle`: start() listens, url is where, stop() closes it.
export abstract class LocalServer {
  private server: ReturnType<typeof Bun.serve> | null = null;

  protected abstract handle(req: Request): Promise<Response>;

  /** Extra listener options (a fake serving event streams turns the idle timeout off). */
  protected serveOptions(): { idleTimeout?: number } {
    return {};
  }

  get url(): string {
    if (!this.server) throw new Error("not started");
    return `http://127.0.0.1:${this.server.port}`;
  }

  async start(): Promise<this> {
    this.server = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      ...this.serveOptions(),
      fetch: (req) => this.handle(req),
    });
    return this;
  }

  async stop(): Promise<void> {
    await this.server?.stop(true);
    this.server = null;
  }
}
