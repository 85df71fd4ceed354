/** Word lists for realistic generated data. Hosts and addresses use reserved example ranges. */
export const BASE_DOMAINS = [
  "acme-corp.example",
  "acme-shop.example",
  "acme-internal.example",
  "globex.example",
  "initech.example",
] as const;

export const SUBDOMAINS = [
  "www",
  "mail",
  "vpn",
  "shop",
  "api",
  "dev",
  "staging",
  "sso",
  "git",
  "cdn",
] as const;

export const IP_PREFIXES = ["192.0.2", "198.51.100", "203.0.113"] as const;

export const FIRST_NAMES = [
  "Jane",
  "John",
  "Priya",
  "Mateo",
  "Aiko",
  "Olu",
  "Sven",
  "Lena",
  "Omar",
  "Chen",
] as const;
export const LAST_NAMES = [
  "Doe",
  "Smith",
  "Patel",
  "García",
  "Tanaka",
  "Okafor",
  "Berg",
  "Novak",
  "Haddad",
  "Li",
] as const;

export const TENANT_NAMES = [
  "Acme Corp (AWS production)",
  "Acme Corp (Microsoft 365)",
  "Acme Corp (Google Workspace)",
  "Globex (Azure)",
  "Initech (AWS staging)",
] as const;

interface LcmProduct {
  product: string;
  version: string;
  latest: string;
  endOfLife: string | null;
}

export const LCM_PRODUCTS: readonly LcmProduct[] = [
  { product: "nginx", version: "1.18.0", latest: "1.27.3", endOfLife: "2021-04-20" },
  { product: "OpenSSL", version: "1.1.1w", latest: "3.4.0", endOfLife: "2023-09-11" },
  { product: "PHP", version: "7.4.33", latest: "8.4.1", endOfLife: "2022-11-28" },
  { product: "jQuery", version: "1.12.4", latest: "3.7.1", endOfLife: null },
  { product: "Apache HTTP Server", version: "2.4.41", latest: "2.4.62", endOfLife: null },
  { product: "Microsoft Exchange Server", version: "2013 CU23", latest: "SE", endOfLife: "2023-04-11" },
  { product: "WordPress", version: "5.8.3", latest: "6.7.1", endOfLife: null },
  { product: "Node.js", version: "14.21.3", latest: "22.12.0", endOfLife: "2023-04-30" },
  { product: "Python", version: "2.7.18", latest: "3.13.1", endOfLife: "2020-01-01" },
];

export const CVES = [
  { id: "CVE-2021-44228", title: "Log4Shell remote code execution in Apache Log4j" },
  { id: "CVE-2023-4966", title: "Citrix Bleed session token leak in NetScaler ADC" },
  { id: "CVE-2024-3400", title: "Command injection in PAN-OS GlobalProtect" },
  { id: "CVE-2022-22965", title: "Spring4Shell remote code execution in Spring Framework" },
  { id: "CVE-2023-34362", title: "SQL injection in MOVEit Transfer" },
  { id: "CVE-2021-26855", title: "ProxyLogon server-side request forgery in Exchange" },
] as const;

export const DNS_ISSUES = [
  "Dangling CNAME record for {host}",
  "Missing SPF record on {host}",
  "DMARC policy set to none on {host}",
  "Zone transfer (AXFR) allowed by the name server of {host}",
  "Subdomain takeover possible on {host}",
] as const;

export const WEB_ISSUES = [
  "Expired TLS certificate on {host}",
  "Admin login page exposed at https://{host}/wp-admin",
  "Missing HSTS header on {host}",
  "Directory listing enabled at https://{host}/backup/",
  "Self-signed certificate on {host}",
] as const;

export const LEAK_SOURCES = [
  "a combolist on a paste site",
  "the Collection #1 dump",
  "an infostealer log",
] as const;

export const CLOUD_ISSUES = [
  "Public storage bucket in {host}",
  "MFA disabled for the root account of {host}",
  "Security group allows 0.0.0.0/0 on port 22 in {host}",
  "Access key older than 365 days in {host}",
] as const;

/** Text a naive renderer turns into mentions, references or HTML, carried by some generated threats. */
export const TRICKY_SUFFIXES = [
  { name: " (flagged by @secops-team)", description: "Ping @admin and @octocat about this." },
  { name: " (see #12)", description: "Duplicate of #12 and acme/security#34." },
  { name: " <b>html</b> in banner", description: "Banner shows <b>bold</b> <script>alert(1)</script> text." },
] as const;

export const ACCEPT_NOTES = [
  "Risk accepted by the CISO until the next maintenance window.",
  "Compensating control: WAF rule 9001 blocks the exploit path.",
] as const;
