import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Subprocess } from "bun";

// A local S3-compatible store for the replication tests (issue 36): s3rver (devDependency) in a
// node child process (./s3-server.cjs says why) on 127.0.0.1. It counts the requests it answers
// (the cost measurement of docs/backups.md) and can be stopped and started again on the same
// port with the same objects (a replica that is unreachable, then back).

export class FakeS3 {
  readonly bucket = "replica";
  readonly accessKeyId = "S3RVER";
  readonly secretAccessKey = "S3RVER";
  /** Requests answered by the processes stopped so far. */
  private counted = 0;
  private proc: Subprocess<"ignore", "pipe", "inherit"> | null = null;

  private constructor(
    readonly directory: string,
    public port: number,
  ) {}

  static async start(): Promise<FakeS3> {
    const s3 = new FakeS3(mkdtempSync(join(tmpdir(), "fake-s3-")), 0);
    await s3.listen();
    return s3;
  }

  get endpoint(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /** Accepts connections (again, on the same port). */
  async listen(): Promise<void> {
    const proc = Bun.spawn(
      ["node", join(import.meta.dir, "s3-server.cjs"), this.directory, String(this.port), this.bucket],
      {
        stdin: "ignore",
        stdout: "pipe",
        stderr: "inherit",
      },
    );
    const reader = proc.stdout.getReader();
    let text = "";
    while (!text.includes("\n")) {
      const { value, done } = await reader.read();
      if (done) throw new Error("the S3 fake exited before listening");
      text += new TextDecoder().decode(value);
    }
    reader.releaseLock();
    this.port = (JSON.parse(text.split("\n")[0]!) as { port: number }).port;
    this.proc = proc;
  }

  /** Requests answered so far (every S3 call Litestream made). */
  async requests(): Promise<number> {
    if (!this.proc) return this.counted;
    const res = await fetch(`${this.endpoint}/__requests`);
    return this.counted + Number(await res.text());
  }

  /** Refuses connections (the replica is unreachable) until listen(). */
  async stop(): Promise<void> {
    const proc = this.proc;
    if (!proc) return;
    this.counted = await this.requests();
    this.proc = null;
    proc.kill("SIGKILL");
    await proc.exited;
  }

  async close(): Promise<void> {
    await this.stop();
    rmSync(this.directory, { recursive: true, force: true });
  }
}
