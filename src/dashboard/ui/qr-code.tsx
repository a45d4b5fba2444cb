import { encode } from "uqr";

// A QR code drawn here, in the page, as one SVG path (uqr encodes; nothing is fetched): the
// otpauth:// URL holds the TOTP secret, so it must not reach any image service, and the CSP
// allows no other host anyway.

/** The dark modules as one path of unit squares, row by row. */
function modulesPath(data: boolean[][]): string {
  let d = "";
  data.forEach((row, y) => {
    row.forEach((dark, x) => {
      if (dark) d += `M${x} ${y}h1v1h-1z`;
    });
  });
  return d;
}

export function QrCode(props: { text: string; label: string }) {
  // Error correction M: a screen photographed at an angle still scans; border 4 is the standard quiet zone.
  const { data, size } = encode(props.text, { ecc: "M", border: 4 });
  return (
    <svg
      class="qr"
      role="img"
      aria-label={props.label}
      viewBox={`0 0 ${size} ${size}`}
      shape-rendering="crispEdges"
      xmlns="http://www.w3.org/2000/svg"
    >
      <rect width={size} height={size} fill="#fff" />
      <path d={modulesPath(data)} fill="#000" />
    </svg>
  );
}
