import { lookup } from "node:dns/promises";
import { isIP } from "node:net";

// SSRF guard for webhook URLs: a user-supplied URL must not make the service call
// into its own host or network. The host is resolved and every address checked, at creation and
// again before every delivery (a name can be re-pointed after it was accepted). Loopback,
// private, link-local, CGNAT, multicast and reserved ranges are refused unless
// WEBHOOK_ALLOW_PRIVATE_URLS=true; cloud metadata addresses are refused always (no webhook
// needs them, and they hold credentials).

export type AddressClass = "public" | "private" | "metadata";

const METADATA_V4 = new Set(["169.254.169.254", "169.254.170.2", "100.100.100.200"]);
const METADATA_V6 = new Set(["fd00:ec2:0:0:0:0:0:254"]);

/** IPv4 ranges that are not on the public internet: [first octets as a 32-bit int, prefix]. */
const PRIVATE_V4: Array<[string, number]> = [
  ["0.0.0.0", 8],
  ["10.0.0.0", 8],
  ["100.64.0.0", 10],
  ["127.0.0.0", 8],
  ["169.254.0.0", 16],
  ["172.16.0.0", 12],
  ["192.0.0.0", 24],
  ["192.0.2.0", 24],
  ["192.168.0.0", 16],
  ["198.18.0.0", 15],
  ["198.51.100.0", 24],
  ["203.0.113.0", 24],
  ["224.0.0.0", 4],
  ["240.0.0.0", 4],
];

function v4ToInt(ip: string): number {
  return ip.split(".").reduce((acc, part) => (acc << 8) + Number(part), 0) >>> 0;
}

function inV4Range(ip: string, [base, prefix]: [string, number]): boolean {
  const mask = prefix === 0 ? 0 : (~0 << (32 - prefix)) >>> 0;
  return (v4ToInt(ip) & mask) >>> 0 === (v4ToInt(base) & mask) >>> 0;
}

/** Eight 16-bit groups of an IPv6 address (an embedded dotted IPv4 tail included). */
function v6Groups(ip: string): number[] {
  let text = ip.toLowerCase().split("%")[0] ?? "";
  const v4Tail = text.match(/(\d+\.\d+\.\d+\.\d+)$/);
  if (v4Tail?.[1]) {
    const n = v4ToInt(v4Tail[1]);
    text = `${text.slice(0, -v4Tail[1].length)}${(n >>> 16).toString(16)}:${(n & 0xffff).toString(16)}`;
  }
  const [head = "", tail] = text.split("::");
  const h = head ? head.split(":") : [];
  const t = tail !== undefined && tail !== "" ? tail.split(":") : [];
  const fill = tail === undefined ? [] : new Array(8 - h.length - t.length).fill("0");
  return [...h, ...fill, ...t].map((g) => Number.parseInt(g, 16));
}

function classifyV4(ip: string): AddressClass {
  if (METADATA_V4.has(ip)) return "metadata";
  return PRIVATE_V4.some((r) => inV4Range(ip, r)) ? "private" : "public";
}

export function classifyAddress(ip: string): AddressClass {
  const family = isIP(ip);
  if (family === 4) return classifyV4(ip);
  if (family !== 6) return "private";
  const g = v6Groups(ip);
  if (METADATA_V6.has(g.map((x) => x.toString(16)).join(":"))) return "metadata";
  const [g0 = 0, , , , , g5 = 0, g6 = 0, g7 = 0] = g;
  const embeddedV4 = `${g6 >>> 8}.${g6 & 0xff}.${g7 >>> 8}.${g7 & 0xff}`;
  const firstFiveZero = g.slice(0, 5).every((x) => x === 0);
  // IPv4-mapped (::ffff:a.b.c.d) and NAT64 (64:ff9b::a.b.c.d) reach the IPv4 address inside.
  if (firstFiveZero && g5 === 0xffff) return classifyV4(embeddedV4);
  if (g0 === 0x64 && g[1] === 0xff9b && g.slice(2, 6).every((x) => x === 0)) return classifyV4(embeddedV4);
  if (g.every((x) => x === 0)) return "private"; // ::
  if (g.slice(0, 7).every((x) => x === 0) && g7 === 1) return "private"; // ::1
  if ((g0 & 0xfe00) === 0xfc00) return "private"; // fc00::/7 unique local
  if ((g0 & 0xffc0) === 0xfe80) return "private"; // fe80::/10 link-local
  if ((g0 & 0xff00) === 0xff00) return "private"; // multicast
  if (g0 === 0x2001 && g[1] === 0x0db8) return "private"; // documentation
  return "public";
}

export type Resolver = (host: string) => Promise<string[]>;

export const dnsResolver: Resolver = async (host) => (await lookup(host, { all: true })).map((a) => a.address);

export class UnsafeUrlError extends Error {}

/**
 * Throws UnsafeUrlError (message safe to show the user) when `url` is not http(s) or resolves to
 * an address the configuration does not allow.
 */
export async function assertSafeWebhookUrl(url: string, allowPrivate: boolean, resolve: Resolver): Promise<void> {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new UnsafeUrlError("URL must be an absolute http(s) URL");
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:")
    throw new UnsafeUrlError("URL must use http or https");
  const host = parsed.hostname.replace(/^\[|\]$/g, "");
  let addresses: string[];
  try {
    addresses = isIP(host) ? [host] : await resolve(host);
  } catch {
    throw new UnsafeUrlError(`Host ${host} could not be resolved`);
  }
  if (addresses.length === 0) throw new UnsafeUrlError(`Host ${host} could not be resolved`);
  for (const address of addresses) {
    const cls = classifyAddress(address);
    if (cls === "metadata")
      throw new UnsafeUrlError("URL resolves to a cloud metadata address, which is never allowed");
    if (cls === "private" && !allowPrivate)
      throw new UnsafeUrlError(
        "URL resolves to a loopback, private or link-local address; set WEBHOOK_ALLOW_PRIVATE_URLS=true to allow it",
      );
  }
}
