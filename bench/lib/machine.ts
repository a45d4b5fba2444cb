import { readFileSync } from "node:fs";
import { availableParallelism, totalmem } from "node:os";

// The machine a run happened on: figures only compare as ratios, but docs/performance.md shows where the
// table came from.

export interface Machine {
  cpus: number;
  cpuModel: string;
  memoryGiB: number;
  kernel: string;
  bun: string;
}

export function machine(): Machine {
  let cpuModel = "unknown";
  try {
    cpuModel = /^model name\s*:\s*(.+)$/m.exec(readFileSync("/proc/cpuinfo", "utf8"))?.[1]?.trim() ?? cpuModel;
  } catch {
    // not Linux
  }
  let kernel = `${process.platform}`;
  try {
    kernel = readFileSync("/proc/sys/kernel/osrelease", "utf8").trim();
  } catch {
    // not Linux
  }
  return {
    cpus: availableParallelism(),
    cpuModel,
    memoryGiB: Math.round((totalmem() / 1024 ** 3) * 10) / 10,
    kernel,
    bun: Bun.version,
  };
}

export const describeMachine = (m: Machine): string =>
  `${m.cpus} CPU (${m.cpuModel}), ${m.memoryGiB} GiB RAM, Linux ${m.kernel}, Bun ${m.bun}`;
