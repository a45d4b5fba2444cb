// Compares the migrations compiled into the binary (src/db/embedded-migrations.ts) with the
// migrations/ folder and its drizzle journal: same tags, same order, same SQL. build.ts refuses
// to build on a mismatch and test/binary/embedded-migrations.test.ts keeps it true (STYLE.md trap:
// "keep a test that the embedded set matches migrations/").
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { embeddedMigrations } from "../src/db/embedded-migrations.ts";

export interface MigrationFile {
  tag: string;
  sql: string;
}

/** The migrations on disk, in journal order. */
export function migrationsOnDisk(root: string): { journal: string[]; files: MigrationFile[] } {
  const dir = join(root, "migrations");
  const journal = (
    JSON.parse(readFileSync(join(dir, "meta/_journal.json"), "utf8")) as { entries: Array<{ tag: string }> }
  ).entries.map((e) => e.tag);
  const files = readdirSync(dir)
    .filter((f) => f.endsWith(".sql"))
    .sort()
    .map((f) => ({ tag: f.slice(0, -4), sql: readFileSync(join(dir, f), "utf8") }));
  return { journal, files };
}

/** Problems, one line each; empty when the embedded set equals the folder. */
export function embeddedMigrationProblems(
  root: string,
  embedded: ReadonlyArray<MigrationFile> = embeddedMigrations,
): string[] {
  const { journal, files } = migrationsOnDisk(root);
  const problems: string[] = [];
  const embeddedTags = embedded.map((m) => m.tag);
  const fileTags = files.map((f) => f.tag);
  if (JSON.stringify(embeddedTags) !== JSON.stringify(journal)) {
    problems.push(`embedded migrations [${embeddedTags.join(", ")}] differ from the journal [${journal.join(", ")}]`);
  }
  for (const f of files) {
    const m = embedded.find((e) => e.tag === f.tag);
    if (!m) problems.push(`migrations/${f.tag}.sql is not embedded`);
    else if (m.sql !== f.sql) problems.push(`embedded ${f.tag} differs from migrations/${f.tag}.sql`);
  }
  for (const tag of embeddedTags)
    if (!fileTags.includes(tag)) problems.push(`embedded ${tag} has no migrations/${tag}.sql`);
  if (problems.length > 0)
    problems.push(
      "run `npm run db:generate` (scripts/generate-migrations.ts) to regenerate src/db/embedded-migrations.ts",
    );
  return problems;
}

if (import.meta.main) {
  const problems = embeddedMigrationProblems(join(import.meta.dir, ".."));
  for (const p of problems) console.error(p);
  process.exit(problems.length > 0 ? 1 : 0);
}
