/** An unreachable platform told from refused credentials, so a network outage does not blame the secret. */

export type NetworkFailureKind =
  | "network_dns"
  | "network_refused"
  | "network_tls"
  | "network_timeout"
  | "network_reset"
  | "network_unreachable"
  | "network_other";

export type PlatformFailureKind =
  | NetworkFailureKind
  /** The token endpoint refused the client (400/401 `invalid_client`...), or the API answered 401/403. */
  | "credentials"
  /** 429, or a Retry-After the connector honours before asking again. */
  | "rate_limited"
  /** The process is stopping (SIGTERM): the request was abandoned, not failed. */
  | "stopped"
  /** Any other answer: a problem+json, a 5xx, a body that is not what the spec says. */
  | "answer";

const DNS = new Set(["ENOTFOUND", "EAI_AGAIN", "EAI_NONAME", "EAI_NODATA", "EAI_FAIL"]);
const REFUSED = new Set(["ECONNREFUSED"]);
const TIMEOUT = new Set([
  "ETIMEDOUT",
  "UND_ERR_CONNECT_TIMEOUT",
  "UND_ERR_HEADERS_TIMEOUT",
  "UND_ERR_BODY_TIMEOUT",
  "ABORT_ERR_TIMEOUT",
]);
const RESET = new Set(["ECONNRESET", "EPIPE", "UND_ERR_SOCKET", "UND_ERR_CLOSED", "ECONNABORTED"]);
const UNREACHABLE = new Set(["EHOSTUNREACH", "ENETUNREACH", "EHOSTDOWN", "ENETDOWN"]);
const TLS =
  /^(ERR_TLS_|ERR_SSL_|CERT_|UNABLE_TO_|DEPTH_ZERO_SELF_SIGNED_CERT|SELF_SIGNED_CERT_IN_CHAIN|ERR_OSSL_|EPROTO$)/;

/** The `code`s and names on an error and its causes (a bounded walk: causes can be cyclic). */
function codesOf(err: unknown): string[] {
  const codes: string[] = [];
  let current: unknown = err;
  for (let depth = 0; depth < 8 && current instanceof Error; depth++) {
    if ("code" in current && typeof current.code === "string") codes.push(current.code);
    if (current.name === "TimeoutError") codes.push("ABORT_ERR_TIMEOUT");
    current = current.cause;
  }
  return codes;
}

/** The kind of a transport failure (no HTTP answer arrived). */
export function networkKindOf(err: unknown): NetworkFailureKind {
  for (const code of codesOf(err)) {
    if (DNS.has(code)) return "network_dns";
    if (REFUSED.has(code)) return "network_refused";
    if (TIMEOUT.has(code)) return "network_timeout";
    if (TLS.test(code)) return "network_tls";
    if (UNREACHABLE.has(code)) return "network_unreachable";
    if (RESET.has(code)) return "network_reset";
  }
  return "network_other";
}

/** What to do about each kind, in the operator's words. */
export const FAILURE_HINTS: Record<PlatformFailureKind, string> = {
  network_dns:
    "DNS: the host name does not resolve; check the host in platform.base_url / token_url and the DNS of this machine (not a credentials problem)",
  network_refused:
    "network: the connection was refused; check the port in platform.base_url / token_url and that the platform is up (not a credentials problem)",
  network_tls:
    "TLS: the certificate or handshake failed; check the https URL and the CA bundle (NODE_EXTRA_CA_CERTS) (not a credentials problem)",
  network_timeout:
    "network: no complete answer within platform.timeout_ms; check the network path, a proxy or firewall, or raise timeout_ms (not a credentials problem)",
  network_reset:
    "network: the connection was dropped; check proxies and load balancers between here and the platform (not a credentials problem)",
  network_unreachable:
    "network: the host is unreachable from here; check routes, proxies and firewalls (not a credentials problem)",
  network_other: "network: the request failed before any answer arrived (not a credentials problem)",
  credentials:
    "credentials: the platform refused them; check platform.client_id, client_secret, token_auth and token_url",
  rate_limited: "rate limited: the platform asked to wait (Retry-After); the connector asks again no earlier",
  stopped: "stopping: the request was abandoned because the process is shutting down",
  answer: "the platform answered with an error; see the message for its problem type",
};

export function isNetworkKind(kind: PlatformFailureKind): kind is NetworkFailureKind {
  return kind.startsWith("network_");
}
