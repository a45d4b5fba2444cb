import { ApiError } from "./api.ts";

// The API's 400 answers list every problem in `details` as "path: message" (src/http/router.ts);
// service-side refusals use the same form (e.g. "url: … resolves to a private address"). Forms
// put each message next to the field its path names; the rest goes to the form's own error.

interface FieldErrors {
  byField: Map<string, string[]>;
  other: string[];
}

/** Splits `details` by the longest field path each starts with (`paths` as the API names them). */
function fieldErrors(details: unknown, paths: string[]): FieldErrors {
  const byField = new Map<string, string[]>();
  const other: string[] = [];
  const longestFirst = [...paths].sort((a, b) => b.length - a.length);
  for (const d of Array.isArray(details) ? details : []) {
    const text = String(d);
    const path = longestFirst.find((p) => text.startsWith(`${p}: `));
    if (!path) {
      other.push(text);
      continue;
    }
    byField.set(path, [...(byField.get(path) ?? []), text.slice(path.length + 2)]);
  }
  return { byField, other };
}

/**
 * A form's failed request: a 400's messages go next to their fields (`setErrors`), the rest to the
 * form's own error (`setError`); any other failure is the form's error as it is.
 */
export function showFormError(
  err: unknown,
  paths: string[],
  setErrors: (byField: Map<string, string[]>) => void,
  setError: (err: unknown) => void,
): void {
  if (err instanceof ApiError && err.status === 400) {
    const { byField, other } = fieldErrors(err.details, paths);
    setErrors(byField);
    setError(new ApiError(400, err.message, other));
  } else setError(err);
}
