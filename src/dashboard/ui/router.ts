import { signal } from "@preact/signals";

// Hash routes (#/agents/<id>/strategy): the server serves one page at `/`, and a reload or a
// bookmark lands on the same view.

export const route = signal<string[]>(parse());

function parse(): string[] {
  return location.hash.replace(/^#\/?/, "").split("/").filter(Boolean).map(decodeURIComponent);
}

addEventListener("hashchange", () => {
  route.value = parse();
});

export const href = (...parts: string[]) => `#/${parts.map(encodeURIComponent).join("/")}`;

export function navigate(...parts: string[]): void {
  location.hash = href(...parts);
}
