import { parseArgs as splitArgs } from "node:util";

// The CLI's argv: node:util's parseArgs splits it (`--name value`, `--name=value`, `-h`, `--`,
// positionals); its tokens are then checked here, because the usage errors are ours: named after
// the option, exit 2, pointing at the command's --help. Unknown options are usage errors instead of
// being silently ignored, and an option given twice is refused rather than the last one winning.

export class UsageError extends Error {
  constructor(
    message: string,
    /** The command whose --help to point at. */
    readonly command?: string,
  ) {
    super(message);
  }
}

export interface OptionSpec {
  /** Long name without dashes. */
  name: string;
  /** Takes a value (`--name value`); otherwise a boolean flag. */
  value: boolean;
  alias?: string;
}

export interface ParsedArgs {
  positionals: string[];
  options: Map<string, string | true>;
}

export function parseArgs(argv: readonly string[], specs: readonly OptionSpec[], command?: string): ParsedArgs {
  const { tokens } = splitArgs({
    args: [...argv],
    options: Object.fromEntries(
      specs.map((s) => [s.name, { type: s.value ? "string" : "boolean", ...(s.alias ? { short: s.alias } : {}) }]),
    ),
    // Not strict: its errors would be Node's wording; every check it would make is made below.
    strict: false,
    allowPositionals: true,
    tokens: true,
  });
  const positionals: string[] = [];
  const options = new Map<string, string | true>();
  for (const t of tokens) {
    if (t.kind === "positional") positionals.push(t.value);
    if (t.kind !== "option") continue;
    const spec = specs.find((s) => s.name === t.name);
    if (!spec) throw new UsageError(`unknown option ${t.rawName}`, command);
    if (!spec.value) {
      if (t.value !== undefined) throw new UsageError(`option --${spec.name} takes no value`, command);
      options.set(spec.name, true);
      continue;
    }
    // `--name --other` is a forgotten value, not the value "--other" (`--name=--other` still is).
    if (t.value === undefined || (!t.inlineValue && t.value.startsWith("--") && t.value.length > 2))
      throw new UsageError(`option --${spec.name} needs a value`, command);
    if (options.has(spec.name)) throw new UsageError(`option --${spec.name} given twice`, command);
    options.set(spec.name, t.value);
  }
  return { positionals, options };
}
