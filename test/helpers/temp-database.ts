import { afterEach, beforeEach } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type DatabaseHandle, openDatabase } from "../../src/db/client.ts";

/**
 * A fresh database file for every test, outside the service's migrations: opened in a new temp
 * directory with `schema` run on it before each test, closed and removed after. `handle` and
 * `path` are the current test's (path: for a second connection to the same file).
 */
export function tempDatabasePerTest(
  prefix: string,
  schema: string,
): { readonly handle: DatabaseHandle; readonly path: string } {
  let dir = "";
  let handle: DatabaseHandle | null = null;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), prefix));
    handle = openDatabase(join(dir, "t.db"), { migrate: false });
    handle.sqlite.exec(schema);
  });
  afterEach(() => {
    handle?.close();
    handle = null;
    rmSync(dir, { recursive: true, force: true });
  });
  return {
    get handle() {
      if (!handle) throw new Error("no database outside a test");
      return handle;
    },
    get path() {
      return join(dir, "t.db");
    },
  };
}
