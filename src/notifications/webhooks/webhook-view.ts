// What the API answers for a webhook endpoint. Kept free of imports so the dashboard can use
// the same type (src/dashboard/ui is bundled for the browser).
export interface WebhookView {
  id: string;
  url: string;
  events: string[];
  description: string;
  enabled: boolean;
  /** `active`, `failing` (failures since `failingSince`) or `disabled` (by the user or after 24 h of failures). */
  status: "active" | "failing" | "disabled";
  failingSince: string | null;
  disabledAt: string | null;
  disabledReason: string | null;
  createdAt: string;
  updatedAt: string;
}
