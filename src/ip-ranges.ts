import { isIP } from "node:net";

// Addresses and CIDR ranges (IPv4 and IPv6), for a signal hook's allowedIps and the trusted
// reverse proxies (TRUSTED_PROXIES). An IPv4-mapped IPv6 address (::ffff:1.2.3.4, what a
// dual-stack socket reports for an IPv4 peer) is judged as the IPv4 address it carries.

/** TradingView's published webhook senders (its "About webhooks" support page, as of 2026). */
export const TRADINGVIEW_ADDRESSES = ["52.89.214.238", "34.212.75.30", "54.218.53.128", "52.32.178.7"] as const;

interface Range {
  v: 4 | 6;
  bits: bigint;
  prefix: number;
}

function v4Bits(address: string): bigint {
  return address.split(".").reduce((acc, part) => (acc << 8n) | BigInt(Number(part)), 0n);
}

function v6Bits(address: string): bigint {
  let text = address;
  // A trailing dotted IPv4 part (::ffff:1.2.3.4, 64:ff9b::1.2.3.4) is two 16-bit groups.
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted) {
    const v4 = v4Bits(dotted[1] as string);
    text = `${text.slice(0, -dotted[1]!.length)}${(v4 >> 16n).toString(16)}:${(v4 & 0xffffn).toString(16)}`;
  }
  const [head = "", tail] = text.split("::");
  const left = head ? head.split(":") : [];
  const right = tail ? tail.split(":") : [];
  const groups = tail === undefined ? left : [...left, ...Array(8 - left.length - right.length).fill("0"), ...right];
  return groups.reduce((acc, g) => (acc << 16n) | BigInt(Number.parseInt(g, 16)), 0n);
}

/** An address in the form ranges are compared in: mapped IPv4 unwrapped, zone id dropped. */
function normalised(address: string): { v: 4 | 6; bits: bigint } | null {
  const text = address.trim().replace(/%.*$/, "");
  const kind = isIP(text);
  if (kind === 4) return { v: 4, bits: v4Bits(text) };
  if (kind !== 6) return null;
  const bits = v6Bits(text);
  // ::ffff:0:0/96 carries an IPv4 address, however it is written.
  return bits >> 32n === 0xffffn ? { v: 4, bits: bits & 0xffffffffn } : { v: 6, bits };
}

/** `1.2.3.4`, `10.0.0.0/8`, `::1`, `2001:db8::/32`; null when it is neither an address nor a range. */
export function parseRange(text: string): Range | null {
  const [address = "", prefixText, extra] = text.trim().split("/");
  if (extra !== undefined) return null;
  const ip = normalised(address);
  if (!ip) return null;
  const width = ip.v === 4 ? 32 : 128;
  if (prefixText === undefined) return { ...ip, prefix: width };
  if (!/^\d{1,3}$/.test(prefixText)) return null;
  // An IPv4-mapped range written in IPv6 (::ffff:10.0.0.0/104) counts its prefix over 128 bits.
  const prefix = Number(prefixText) - (ip.v === 4 && isIP(address.trim()) === 6 ? 96 : 0);
  return prefix < 0 || prefix > width ? null : { ...ip, prefix };
}

function inRange(ip: { v: 4 | 6; bits: bigint }, r: Range): boolean {
  if (ip.v !== r.v) return false;
  const shift = BigInt((r.v === 4 ? 32 : 128) - r.prefix);
  return ip.bits >> shift === r.bits >> shift;
}

/** A set of ranges, asked whether an address falls in one of them. */
export class AddressRanges {
  private readonly ranges: Range[];

  constructor(entries: readonly string[]) {
    this.ranges = entries.flatMap((e) => {
      const r = parseRange(e);
      return r ? [r] : [];
    });
  }

  get empty(): boolean {
    return this.ranges.length === 0;
  }

  has(address: string): boolean {
    const ip = normalised(address);
    return ip !== null && this.ranges.some((r) => inRange(ip, r));
  }
}

/** A hook's allowedIps as ranges: the word `tradingview` stands for TradingView's addresses. */
export function allowListRanges(allowedIps: readonly string[]): AddressRanges {
  return new AddressRanges(
    allowedIps.flatMap((e) => (e.toLowerCase() === "tradingview" ? [...TRADINGVIEW_ADDRESSES] : [e])),
  );
}
