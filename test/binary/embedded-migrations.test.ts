import { expect, test } from "bun:test";
import { embeddedMigrationProblems, migrationsOnDisk } from "../../scripts/check-embedded-migrations.ts";
import { embeddedMigrations } from "../../src/db/embedded-migrations.ts";
import { ROOT } from "../cli/process-helpers.ts";

// STYLE.md trap: the binary carries its migrations (src/db/embedded-migrations.ts); keep the
// embedded set equal to migrations/ (names, order, content).

test("the embedded migrations are exactly the files in migrations/, in journal order", () => {
  const { journal, files } = migrationsOnDisk(ROOT);
  expect(files.length).toBeGreaterThan(0);
  expect(embeddedMigrations.map((m) => m.tag)).toEqual(journal);
  expect(embeddedMigrations.map((m) => m.tag).toSorted()).toEqual(files.map((f) => f.tag));
  for (const f of files) expect(embeddedMigrations.find((m) => m.tag === f.tag)!.sql).toBe(f.sql);
  expect(embeddedMigrationProblems(ROOT)).toEqual([]);
});

test("the check reports a missing, an extra and a changed migration", () => {
  expect(embeddedMigrationProblems(ROOT, [])).toEqual([
    `embedded migrations [] differ from the journal [${migrationsOnDisk(ROOT).journal.join(", ")}]`,
    ...embeddedMigrations.map((m) => `migrations/${m.tag}.sql is not embedded`),
    "run `npm run db:generate` (scripts/generate-migrations.ts) to regenerate src/db/embedded-migrations.ts",
  ]);
  const problems = embeddedMigrationProblems(ROOT, [
    ...embeddedMigrations.slice(0, -1),
    { ...embeddedMigrations.at(-1)!, sql: "-- edited" },
    { tag: "9999_extra", sql: "" },
  ]);
  expect(problems).toContain(
    `embedded ${embeddedMigrations.at(-1)!.tag} differs from migrations/${embeddedMigrations.at(-1)!.tag}.sql`,
  );
  expect(problems).toContain("embedded 9999_extra has no migrations/9999_extra.sql");
});
