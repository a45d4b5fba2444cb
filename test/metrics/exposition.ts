// A strict-enough parser of the Prometheus text format (0.0.4) for assertions: families with
// their HELP and TYPE, and samples with labels. Throws on a line it does not understand, so a
// malformed exposition fails the test even where promtool is not installed.

interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

export interface Family {
  name: string;
  help?: string;
  type?: string;
  samples: Sample[];
}

const NAME = "[a-zA-Z_:][a-zA-Z0-9_:]*";
const SAMPLE = new RegExp(`^(${NAME})(?:\\{(.*)\\})?\\s+(\\S+)(?:\\s+(-?\\d+))?$`);
const LABEL = /\s*([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"\s*(?:,|$)/y;

export function parseExposition(text: string): Map<string, Family> {
  const families = new Map<string, Family>();
  const family = (name: string) => {
    let f = families.get(name);
    if (!f) families.set(name, (f = { name, samples: [] }));
    return f;
  };
  const familyOf = (sample: string) => {
    for (const suffix of ["_bucket", "_sum", "_count"]) {
      if (sample.endsWith(suffix)) {
        const base = sample.slice(0, -suffix.length);
        const f = families.get(base);
        if (f && (f.type === "histogram" || f.type === "summary")) return f;
      }
    }
    return family(sample);
  };
  for (const [i, line] of text.split("\n").entries()) {
    if (line.trim() === "") continue;
    let m: RegExpMatchArray | null;
    if ((m = line.match(new RegExp(`^# HELP (${NAME}) (.*)$`)))) {
      family(m[1]!).help = m[2]!;
    } else if ((m = line.match(new RegExp(`^# TYPE (${NAME}) (counter|gauge|histogram|summary|untyped)$`)))) {
      family(m[1]!).type = m[2]!;
    } else if (line.startsWith("#")) {
      throw new Error(`line ${i + 1}: unexpected comment: ${line}`);
    } else if ((m = line.match(SAMPLE))) {
      const labels: Record<string, string> = {};
      const raw = m[2] ?? "";
      LABEL.lastIndex = 0;
      while (LABEL.lastIndex < raw.length) {
        const start = LABEL.lastIndex;
        const l = LABEL.exec(raw);
        if (!l || LABEL.lastIndex === start) throw new Error(`line ${i + 1}: bad labels: ${raw}`);
        labels[l[1]!] = l[2]!.replace(/\\n/g, "\n").replace(/\\"/g, '"').replace(/\\\\/g, "\\");
      }
      const value = parseValue(m[3]!);
      if (value === undefined) throw new Error(`line ${i + 1}: bad value: ${line}`);
      familyOf(m[1]!).samples.push({ name: m[1]!, labels, value });
    } else {
      throw new Error(`line ${i + 1}: not a metric line: ${line}`);
    }
  }
  return families;
}

function parseValue(v: string): number | undefined {
  if (/^[+-]?inf$/i.test(v)) return v.startsWith("-") ? -Infinity : Infinity;
  if (/^nan$/i.test(v)) return NaN;
  const n = Number(v);
  return Number.isNaN(n) ? undefined : n;
}

/** The one sample of `name` whose labels include `labels`; throws when absent or ambiguous. */
export function sampleValue(families: Map<string, Family>, name: string, labels: Record<string, string> = {}): number {
  const all = [...families.values()].flatMap((f) => f.samples).filter((s) => s.name === name);
  const hits = all.filter((s) => Object.entries(labels).every(([k, v]) => s.labels[k] === v));
  if (hits.length !== 1) throw new Error(`${hits.length} samples of ${name} match ${JSON.stringify(labels)}`);
  return hits[0]!.value;
}
