/**
 * Which of DNS, network, TLS, a timeout or the credentials made a call fail, so that a network
 * error is never reported as a credentials error. Reads the error codes Node and undici put on an
 * error or anywhere down its `cause` chain, and, where a client kept only the message (Octokit
 * reports a failed fetch as a message like "connect ECONNREFUSED 127.0.0.1:9"), the code in it.
 * To be replaced by the platform's `classifyNetworkError` once it is exported.
 */

export type Diagnosis = "dns" | "network" | "tls" | "timeout" | "credentials" | "other";

const DNS = new Set(["ENOTFOUND", "EAI_AGAIN", "EAI_NONAME", "EAI_NODATA"]);
const NETWORK = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "EPIPE",
  "ECONNABORTED",
  "UND_ERR_SOCKET",
  "UND_ERR_CLOSED",
]);
const TIMEOUT = new Set([
  "ETIMEDOUT",
  "UND_ERR_CONNECT_TIMEOUT",
  "UND_ERR_HEADERS_TIMEOUT",
  "UND_ERR_BODY_TIMEOUT",
  "ABORT_ERR",
]);
const TLS_PREFIXES = [
  "CERT_",
  "ERR_TLS_",
  "UNABLE_TO_VERIFY",
  "UNABLE_TO_GET_ISSUER",
  "SELF_SIGNED_CERT",
  "DEPTH_ZERO_SELF_SIGNED",
];
const CODE_IN_TEXT =
  /\b(E[A-Z_]{3,}|UND_ERR_[A-Z_]+|CERT_[A-Z_]+|ERR_TLS_[A-Z_]+|UNABLE_TO_[A-Z_]+|(?:DEPTH_ZERO_)?SELF_SIGNED_CERT[A-Z_]*)\b/g;

/** Codes on the error and its causes, then codes named in their messages. */
function errorCodes(error: unknown): string[] {
  const codes: string[] = [];
  const texts: string[] = [];
  let current: unknown = error;
  for (let depth = 0; depth < 8 && current !== undefined && current !== null; depth++) {
    if (typeof current === "object") {
      const code = "code" in current ? current.code : undefined;
      if (typeof code === "string") codes.push(code);
      const name = "name" in current ? current.name : undefined;
      if (name === "AbortError" || name === "TimeoutError") codes.push("ABORT_ERR");
      const message = "message" in current ? current.message : undefined;
      if (typeof message === "string") texts.push(message);
      current = "cause" in current ? current.cause : undefined;
    } else {
      if (typeof current === "string") texts.push(current);
      break;
    }
  }
  for (const text of texts)
    for (const match of text.matchAll(CODE_IN_TEXT)) if (match[1]) codes.push(match[1]);
  return codes;
}

/**
 * A transport failure's kind, or "credentials" for an HTTP 401 or an OAuth `invalid_client` /
 * `unauthorized_client` answer; "other" for anything else (the caller says what it knows).
 */
export function diagnose(
  error: unknown,
  answer: { status?: number | null; oauthError?: string | undefined } = {},
): Diagnosis {
  for (const code of errorCodes(error)) {
    if (DNS.has(code)) return "dns";
    if (TLS_PREFIXES.some((prefix) => code.startsWith(prefix))) return "tls";
    if (TIMEOUT.has(code)) return "timeout";
    if (NETWORK.has(code)) return "network";
  }
  const oauth = answer.oauthError;
  if (answer.status === 401 || oauth === "invalid_client" || oauth === "unauthorized_client")
    return "credentials";
  return "other";
}

/** What to do next, per diagnosis, for the URL of the failing side. */
export function diagnosisHint(diagnosis: Diagnosis, url: string, credentials: string): string {
  const host = hostOf(url);
  switch (diagnosis) {
    case "dns":
      return `DNS: the name ${host} does not resolve; check the URL and this host's DNS`;
    case "network":
      return `network: cannot connect to ${host} (refused, reset or unreachable); check the URL, the port, that the server runs, and firewalls or proxies`;
    case "tls":
      return `TLS: the certificate of ${host} is not trusted or does not match; check the URL, or give the CA with NODE_EXTRA_CA_CERTS`;
    case "timeout":
      return `timeout: ${host} did not answer in time; check the network path and the server`;
    case "credentials":
      return `credentials: ${host} refused them; check ${credentials}`;
    case "other":
      return `${host} answered with an error (see the detail): check the URL and ${credentials}`;
  }
}

function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return url;
  }
}
