import type { DeclaredOperation } from "../../src/http/operation.ts";

// Reading the OpenAPI document for the tests generated from the declared routes
// (test/http/route-security.test.ts, test/http/request-path-parity.test.ts): a request body and
// path values that pass each route's schemas, from the document's own examples.

type Json = Record<string, any>;

export function openApiReader(doc: Json) {
  const operationOf = (method: string, path: string): Json => doc.paths[path]?.[method.toLowerCase()] ?? {};

  const resolve = (schema: Json | undefined): Json | undefined => {
    const ref = schema?.$ref as string | undefined;
    return ref ? doc.components.schemas[ref.split("/").pop() as string] : schema;
  };

  /** The example JSON body of an operation, or undefined when it takes no JSON body. */
  const exampleBody = (method: string, path: string): Json | undefined => {
    const media = operationOf(method, path).requestBody?.content?.["application/json"];
    if (!media) return undefined;
    return (
      media.example ??
      Object.values((media.examples ?? {}) as Json)[0]?.value ??
      media.schema?.example ??
      resolve(media.schema)?.example
    );
  };

  /** The path with each parameter's example value, or `values[name]` when given. */
  const exampleUrl = (op: DeclaredOperation, values: Record<string, string | undefined> = {}): string => {
    const params = (operationOf(op.method, op.path).parameters ?? []) as Json[];
    return op.path.replace(/\{([^}]+)\}/g, (_, name: string) => {
      if (name in values) return values[name] ?? "";
      const p = params.find((x) => x.name === name && x.in === "path");
      return encodeURIComponent(String(p?.example ?? p?.schema?.example ?? "x"));
    });
  };

  return { operationOf, exampleBody, exampleUrl };
}

export const labelOf = (op: DeclaredOperation) => `${op.method} ${op.path}`;

/** The answer's status and `error`, without waiting for an event stream that stays open. */
export async function answerOf(res: Response): Promise<{ status: number; error?: string }> {
  if (res.headers.get("content-type")?.startsWith("text/event-stream")) {
    await res.body?.cancel();
    return { status: res.status };
  }
  const text = await res.text();
  try {
    return { status: res.status, error: JSON.parse(text).error };
  } catch {
    return { status: res.status };
  }
}
