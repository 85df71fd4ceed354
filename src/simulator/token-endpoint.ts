import type { Reply } from "./http-io.js";
import type { TokenRegistry } from "./tokens.js";

/** RFC 6749 §5.2 error answers of the token endpoint (not problem+json: it is the identity provider). */
function oauthError(
  status: number,
  error: string,
  description: string,
  headers: Record<string, string> = {},
): Reply {
  return {
    status,
    json: { error, error_description: description },
    headers: { "Cache-Control": "no-store", Pragma: "no-cache", ...headers },
  };
}

/** RFC 6749 §2.3.1: the Basic credentials are form-urlencoded before base64. */
function basicCredentials(header: string): { id: string; secret: string } | null {
  const match = /^Basic\s+([A-Za-z0-9+/=_-]+)\s*$/i.exec(header);
  if (match?.[1] === undefined) return null;
  const decoded = Buffer.from(match[1], "base64").toString("utf8");
  const colon = decoded.indexOf(":");
  if (colon < 0) return null;
  try {
    const unform = (s: string): string => decodeURIComponent(s.replace(/\+/g, " "));
    return { id: unform(decoded.slice(0, colon)), secret: unform(decoded.slice(colon + 1)) };
  } catch {
    return null;
  }
}

/** `POST /oauth/token`, client credentials (spec, Authentication 1–3), by Basic or form fields, not both. */
export function handleTokenRequest(
  registry: TokenRegistry,
  authorization: string | undefined,
  contentType: string | undefined,
  body: string,
): Reply {
  if (!(contentType ?? "").toLowerCase().startsWith("application/x-www-form-urlencoded")) {
    return oauthError(400, "invalid_request", "use Content-Type application/x-www-form-urlencoded");
  }
  const form = new URLSearchParams(body);
  const grantType = form.get("grant_type");
  if (grantType === null) return oauthError(400, "invalid_request", "grant_type is required");
  if (grantType !== "client_credentials") {
    return oauthError(400, "unsupported_grant_type", "only client_credentials is supported");
  }
  const formId = form.get("client_id");
  const formSecret = form.get("client_secret");
  const basic = authorization === undefined ? null : basicCredentials(authorization);
  if (authorization !== undefined && basic === null) {
    return oauthError(401, "invalid_client", "malformed Basic credentials", {
      "WWW-Authenticate": 'Basic realm="sim"',
    });
  }
  if (basic !== null && formSecret !== null) {
    return oauthError(400, "invalid_request", "use one client authentication method, not two");
  }
  const credentials =
    basic ?? (formId !== null && formSecret !== null ? { id: formId, secret: formSecret } : null);
  const client = credentials === null ? null : registry.authenticate(credentials.id, credentials.secret);
  if (client === null) {
    const headers: Record<string, string> = basic === null ? {} : { "WWW-Authenticate": 'Basic realm="sim"' };
    return oauthError(401, "invalid_client", "client authentication failed", headers);
  }
  const token = registry.issue(client);
  return {
    status: 200,
    json: { access_token: token.accessToken, token_type: "Bearer", expires_in: token.expiresIn },
    headers: { "Cache-Control": "no-store", Pragma: "no-cache" },
  };
}
