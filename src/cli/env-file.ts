import { readFileSync } from "node:fs";
import { ConfigError } from "../config.ts";

// `--env-file PATH`: KEY=value lines merged under the process environment, so a variable set in
// the environment (systemd's Environment=/EnvironmentFile=, the shell) wins over the file. The
// format is the .env format of .env.example: `#` comments (also after an unquoted value),
// optional `export `, single quotes literal, double quotes with \n \r \t \" \\ escapes. Values
// are never expanded ($VAR stays as written: passwords often contain `$`).

const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Parses env-file text. Problems name the line, never its value (it may be a secret). */
export function parseEnvFile(text: string, source = "env file"): Record<string, string> {
  const out: Record<string, string> = {};
  const problems: string[] = [];
  const lines = text.replace(/^\uFEFF/, "").split(/\r?\n/);
  lines.forEach((raw, i) => {
    const where = `${source} line ${i + 1}`;
    let line = raw.trim();
    if (line === "" || line.startsWith("#")) return;
    if (line.startsWith("export ")) line = line.slice(7).trimStart();
    const eq = line.indexOf("=");
    if (eq <= 0) {
      problems.push(`${where}: expected NAME=value`);
      return;
    }
    const name = line.slice(0, eq).trim();
    if (!NAME.test(name)) {
      problems.push(`${where}: invalid variable name`);
      return;
    }
    const value = parseValue(line.slice(eq + 1).trimStart());
    if (value === null) {
      problems.push(`${where}: ${name}: unterminated quote`);
      return;
    }
    out[name] = value;
  });
  if (problems.length > 0) throw new ConfigError(problems);
  return out;
}

function parseValue(rest: string): string | null {
  const q = rest[0];
  if (q === "'" || q === '"') {
    let value = "";
    for (let i = 1; i < rest.length; i++) {
      const ch = rest[i]!;
      if (ch === q) {
        const after = rest.slice(i + 1).trim();
        return after === "" || after.startsWith("#") ? value : null;
      }
      if (q === '"' && ch === "\\" && i + 1 < rest.length) {
        const next = rest[++i]!;
        value += next === "n" ? "\n" : next === "r" ? "\r" : next === "t" ? "\t" : next;
        continue;
      }
      value += ch;
    }
    return null;
  }
  // Unquoted: a `#` after whitespace starts a comment (.env.example writes `DB_SYNC=normal  # normal | full`).
  const comment = rest.search(/(^|\s)#/);
  return (comment >= 0 ? rest.slice(0, comment) : rest).trim();
}

/** The environment to configure from: the file's variables, overridden by the process environment. */
export function mergeEnvFile(
  path: string,
  env: Record<string, string | undefined>,
): Record<string, string | undefined> {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new ConfigError([`--env-file: cannot read ${path}${code ? ` (${code})` : ""}`]);
  }
  return { ...parseEnvFile(text, path), ...definedOnly(env) };
}

function definedOnly(env: Record<string, string | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(env)) if (v !== undefined) out[k] = v;
  return out;
}
