/**
 * Every credential the process holds, so that no log line, error message or status output shows
 * one (style.md "Never log a token"). One registry per process, passed in (no
 * module singleton): the CLI fills it from the config, the platform client adds each access
 * token as it is issued, and the logger and error formatting scrub through it.
 *
 * Besides the registered values, text that looks like a credential is scrubbed wherever it comes
 * from (a server that echoes the request): `Authorization: ...` headers, `Bearer`/`Basic`
 * values, GitHub tokens (`ghp_`, `gho_`, `ghu_`, `ghs_`, `ghr_`, `github_pat_`) and PEM private keys.
 */

const REDACTED = "[redacted]";

/** Shorter values are not secrets worth a global replace (and would mangle ordinary words). */
const MIN_SECRET_LENGTH = 6;
/**
 * A daemon registers a new access token every few minutes; the oldest expired ones are dropped
 * beyond this many values so the matcher stays small. The config's secrets are never dropped.
 */
const MAX_VALUES = 512;

const PATTERNS: readonly RegExp[] = [
  /-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?-----END [A-Z ]*PRIVATE KEY-----/g,
  // A header as a server may echo it: the value up to the end of the line or a quote (a backslash
  // stops it too, so that a JSON log line stays valid JSON).
  /(\bauthorization["']?\s*[:=]\s*["']?)[^"'\\\r\n,}]+/gi,
  /(\b(?:bearer|basic)\s+)[A-Za-z0-9\-._~+/]{8,}=*/gi,
  /\bgh[pousr]_[A-Za-z0-9_]{8,}/g,
  /\bgithub_pat_[A-Za-z0-9_]{8,}/g,
];

export interface SecretRegistry {
  /** Registers a credential (and the encodings it travels in). Empty or short values are ignored. */
  add(secret: string | undefined | null): void;
  /** `text` with every registered secret and every credential-looking value replaced. */
  scrub(text: string): string;
  /** How many distinct values are registered (for tests and diagnostics; never the values). */
  size(): number;
}

/** RFC 6749 §2.3.1 form encoding: a client secret travels like this in HTTP Basic and in forms. */
function formEncode(value: string): string {
  return encodeURIComponent(value).replace(
    /[!'()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

export function createSecretRegistry(initial: readonly (string | undefined | null)[] = []): SecretRegistry {
  const values = new Set<string>();
  const pinned = new Set<string>();
  let matcher: RegExp | null = null;
  let pinning = true;

  function addOne(value: string): void {
    if (value.length < MIN_SECRET_LENGTH || values.has(value)) return;
    values.add(value);
    if (pinning) pinned.add(value);
    matcher = null;
    if (values.size <= MAX_VALUES) return;
    for (const old of values) {
      if (pinned.has(old)) continue;
      values.delete(old);
      if (values.size <= MAX_VALUES) break;
    }
  }

  function compiled(): RegExp | null {
    if (matcher === null && values.size > 0) {
      // Longest first, so that a secret containing another is replaced whole.
      const sorted = [...values].sort((a, b) => b.length - a.length).map(escapeRegExp);
      matcher = new RegExp(sorted.join("|"), "g");
    }
    return matcher;
  }

  const registry: SecretRegistry = {
    add(secret) {
      if (secret === undefined || secret === null) return;
      const trimmed = secret.trim();
      if (trimmed === "") return;
      for (const form of [
        trimmed,
        formEncode(trimmed),
        encodeURIComponent(trimmed),
        JSON.stringify(trimmed).slice(1, -1),
      ])
        addOne(form);
      // A PEM key is also logged line by line, or with its line breaks escaped.
      for (const line of trimmed.split(/\r?\n/)) if (!line.startsWith("-----")) addOne(line.trim());
    },
    scrub(text) {
      const re = compiled();
      let out = re === null ? text : text.replace(re, REDACTED);
      for (const pattern of PATTERNS) {
        out = out.replace(pattern, (match: string, prefix: unknown) =>
          typeof prefix === "string" && match.startsWith(prefix) ? `${prefix}${REDACTED}` : REDACTED,
        );
      }
      return out;
    },
    size: () => values.size,
  };
  for (const secret of initial) registry.add(secret);
  pinning = false;
  return registry;
}
