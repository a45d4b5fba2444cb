export const MAX_BODY_BYTES = 64 * 1024; // PRODUCT.md §6
/**
 * The signal import takes up to 10,000 CSV rows, far beyond 64 KiB: that one route has
 * its own limit (docs/decisions.md "Strategy lab"); every other route keeps MAX_BODY_BYTES.
 */
export const MAX_IMPORT_BODY_BYTES = 8 * 1024 * 1024;
