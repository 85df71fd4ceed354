import type { Reply } from "./router.js";

const DOCS = "https://docs.github.com/rest";

export const notFound = (): Reply => ({
  status: 404,
  body: { message: "Not Found", documentation_url: DOCS, status: "404" },
});

export const gone = (): Reply => ({
  status: 410,
  body: { message: "This issue was deleted", documentation_url: DOCS, status: "410" },
});

export const movedPermanently = (location: string): Reply => ({
  status: 301,
  headers: { location },
  body: { message: "Moved Permanently", url: location, documentation_url: DOCS },
});

/** A permanent refusal: a locked conversation or an archived repository (GitHub answers 403). */
export const forbidden = (message: string): Reply => ({
  status: 403,
  body: { message, documentation_url: DOCS, status: "403" },
});

export const badCredentials = (): Reply => ({
  status: 401,
  body: { message: "Bad credentials", documentation_url: DOCS, status: "401" },
});

export const badJson = (): Reply => ({
  status: 400,
  body: { message: "Problems parsing JSON", documentation_url: DOCS, status: "400" },
});

/** One entry of a 422's `errors` array, as GitHub writes them. */
export interface ValidationEntry {
  resource: string;
  code: "missing_field" | "invalid" | "custom" | "already_exists" | "missing";
  field: string;
  message?: string;
}

export const validationFailed = (errors: ValidationEntry[], documentationUrl = DOCS): Reply => ({
  status: 422,
  body: { message: "Validation Failed", errors, documentation_url: documentationUrl, status: "422" },
});

export const secondaryLimited = (retryAfterSeconds: number): Reply => ({
  status: 403,
  headers: { "retry-after": String(retryAfterSeconds) },
  body: {
    message:
      "You have exceeded a secondary rate limit. Please wait a few minutes before you try again. " +
      "If you reach out to GitHub Support for help, please include the request ID.",
    documentation_url:
      "https://docs.github.com/rest/overview/rate-limits-for-the-rest-api#about-secondary-rate-limits",
    status: "403",
  },
});

export const primaryLimited = (): Reply => ({
  status: 403,
  body: {
    message:
      "API rate limit exceeded. (But here's the good news: Authenticated requests get a higher rate limit.)",
    documentation_url: "https://docs.github.com/rest/overview/rate-limits-for-the-rest-api",
    status: "403",
  },
});

export const serverError = (status: 500 | 502 | 503): Reply => ({
  status,
  body: { message: status === 500 ? "Server Error" : "Service Unavailable", status: String(status) },
});
