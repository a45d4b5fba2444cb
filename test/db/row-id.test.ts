import { expect, test } from "bun:test";
import { newRowId } from "../../src/db/row-id.ts";

// src/db/row-id.ts: time-ordered ids for rows appended to large tables.

test("version 7 UUIDs, in creation order, all distinct", () => {
  const ids = Array.from({ length: 5_000 }, () => newRowId());
  for (const id of ids) expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  expect([...ids].sort()).toEqual(ids);
  expect(new Set(ids).size).toBe(ids.length);
  // The leading 48 bits are the creation time in milliseconds.
  const ms = Number.parseInt(ids[0]!.replace(/-/g, "").slice(0, 12), 16);
  expect(Math.abs(ms - Date.now())).toBeLessThan(60_000);
});
