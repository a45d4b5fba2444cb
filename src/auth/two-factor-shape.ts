// The second factor's login answers, with no imports: read by the service (src/auth/two-factor.ts)
// and by the dashboard's login form, which moves to its code step on CODE_REQUIRED, so a change of
// wording cannot leave the form behind.

export const INVALID_CODE = "Invalid two-factor code";
export const CODE_REQUIRED = "Two-factor code required";
