// A small argv parser for the CLI: `--name value`, `--name=value`, boolean flags, positionals.
// Unknown options are usage errors (exit 2) instead of being silently ignored.

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
  const positionals: string[] = [];
  const options = new Map<string, string | true>();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === "--") {
      positionals.push(...argv.slice(i + 1));
      break;
    }
    if (!arg.startsWith("-") || arg === "-") {
      positionals.push(arg);
      continue;
    }
    const eq = arg.indexOf("=");
    const flag = eq >= 0 ? arg.slice(0, eq) : arg;
    const spec = specs.find((s) => `--${s.name}` === flag || (s.alias !== undefined && `-${s.alias}` === flag));
    if (!spec) throw new UsageError(`unknown option ${flag}`, command);
    if (!spec.value) {
      if (eq >= 0) throw new UsageError(`option --${spec.name} takes no value`, command);
      options.set(spec.name, true);
      continue;
    }
    let value: string | undefined;
    if (eq >= 0) value = arg.slice(eq + 1);
    else {
      value = argv[i + 1];
      if (value === undefined || (value.startsWith("--") && value.length > 2))
        throw new UsageError(`option --${spec.name} needs a value`, command);
      i++;
    }
    if (options.has(spec.name)) throw new UsageError(`option --${spec.name} given twice`, command);
    options.set(spec.name, value);
  }
  return { positionals, options };
}
