import { Database } from "bun:sqlite";
import type { CheckpointReply, CheckpointRequest } from "./wal-checkpointer.ts";

// The worker thread of ./wal-checkpointer.ts: its own connection to the service's database file,
// on which it runs PASSIVE checkpoints when asked, so that copying WAL frames back into the
// database (and the fsync) happens beside the event loop instead of inside a commit on it.
// A PASSIVE checkpoint takes no lock a writer or a reader waits for; it copies what it can.
// build.ts lists this file as an entry point of the executable.

declare const self: Worker;

let db: Database | null = null;

function reply(m: CheckpointReply): void {
  self.postMessage(m);
}

self.onmessage = (e: MessageEvent<CheckpointRequest>) => {
  const m = e.data;
  try {
    if (m.kind === "open") {
      db = new Database(m.path, { readwrite: true, create: false, strict: true });
      db.exec(`PRAGMA busy_timeout = ${m.busyTimeoutMs}`);
      reply({ kind: "ready" });
    } else if (m.kind === "checkpoint") {
      if (!db) throw new Error("the checkpoint connection is not open");
      const r = db
        .query<{ busy: number; log: number; checkpointed: number }, []>("PRAGMA wal_checkpoint(PASSIVE)")
        .get();
      reply({ kind: "done", busy: r?.busy ?? 0, log: r?.log ?? 0, checkpointed: r?.checkpointed ?? 0 });
    } else {
      db?.close();
      db = null;
      reply({ kind: "closed" });
    }
  } catch (err) {
    reply({ kind: "failed", message: err instanceof Error ? err.message : String(err) });
  }
};
