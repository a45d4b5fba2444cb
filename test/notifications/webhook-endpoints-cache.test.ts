import { Database } from "bun:sqlite";
import { afterEach, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type DatabaseHandle, openDatabase } from "../../src/db/client.ts";
import { WebhookRepository } from "../../src/db/repositories/webhooks.ts";

// enabledOf is asked for every event of a user and keeps its answer while the database's change
// stamp is unchanged: an endpoint created, disabled or deleted — through the repository, or by
// another connection — is seen by the very next event.

let dir = "";
let handle: DatabaseHandle | null = null;
afterEach(() => {
  handle?.close();
  handle = null;
  if (dir) rmSync(dir, { recursive: true, force: true });
});

function setUp() {
  dir = mkdtempSync(join(tmpdir(), "webhook-cache-"));
  handle = openDatabase(join(dir, "t.db"));
  const now = new Date().toISOString();
  handle.sqlite
    .query(
      "INSERT INTO users (id, email, password_hash, created_at, updated_at) VALUES ('u1', 'u1@x.local', 'x', ?, ?)",
    )
    .run(now, now);
  const repo = new WebhookRepository(handle);
  const add = (id: string) =>
    repo.insert({
      id,
      userId: "u1",
      url: `https://example.com/${id}`,
      events: ["position.updated"],
      sealedSecret: "s",
      createdAt: now,
      updatedAt: now,
    });
  return { repo, add, path: join(dir, "t.db") };
}

test("an endpoint written through the repository is seen by the next lookup", () => {
  const { repo, add } = setUp();
  expect(repo.enabledOf("u1")).toEqual([]);
  add("w1");
  expect(repo.enabledOf("u1").map((w) => w.id)).toEqual(["w1"]);
  expect(repo.enabledOf("u1").map((w) => w.id)).toEqual(["w1"]);
  repo.update("w1", { enabled: false });
  expect(repo.enabledOf("u1")).toEqual([]);
  repo.update("w1", { enabled: true });
  expect(repo.delete("u1", "w1")).toBe(true);
  expect(repo.enabledOf("u1")).toEqual([]);
});

test("a write by another connection is seen by the next lookup", () => {
  const { repo, add, path } = setUp();
  add("w1");
  expect(repo.enabledOf("u1")).toHaveLength(1);
  const other = new Database(path);
  try {
    other.query("UPDATE webhooks SET enabled = 0 WHERE id = 'w1'").run();
  } finally {
    other.close();
  }
  expect(repo.enabledOf("u1")).toEqual([]);
});

test("raw SQL on the same connection, and a user's deletion (cascade), are seen by the next lookup", () => {
  const { repo, add } = setUp();
  add("w1");
  add("w2");
  expect(repo.enabledOf("u1")).toHaveLength(2);
  handle!.sqlite.query("UPDATE webhooks SET enabled = 0 WHERE id = 'w1'").run();
  expect(repo.enabledOf("u1").map((w) => w.id)).toEqual(["w2"]);
  handle!.sqlite.query("DELETE FROM users WHERE id = 'u1'").run();
  expect(repo.enabledOf("u1")).toEqual([]);
});

test("writes to other tables leave the remembered answer in place", () => {
  const { repo, add } = setUp();
  add("w1");
  const first = repo.enabledOf("u1");
  const now = new Date().toISOString();
  handle!.sqlite
    .query(
      "INSERT INTO users (id, email, password_hash, created_at, updated_at) VALUES ('u2', 'u2@x.local', 'x', ?, ?)",
    )
    .run(now, now);
  // The same array: answered from memory, not read again.
  expect(repo.enabledOf("u1")).toBe(first);
});
