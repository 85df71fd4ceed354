import { createHash } from "node:crypto";
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from "node:http";
import { z } from "zod";

/**
 * A small, strict, stateful GitHub REST fake for the gateway's tests (node:http on 127.0.0.1).
 * Any request it does not know is answered 501 and recorded in `unexpected`, which each test
 * checks is empty.
 */
export interface FakeIssue {
  id: number;
  number: number;
  title: string;
  body: string | null;
  state: "open" | "closed";
  state_reason: string | null;
  labels: string[];
  assignees: string[];
  created_at: string;
  updated_at: string;
  pull_request?: { url: string };
}

export interface FakeEvent {
  event: string;
  actor: { login: string } | null;
  performed_via_github_app: { id: number; slug: string } | null;
  state_reason: string | null;
}

export interface FakeRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
  body: unknown;
}

export type Fault =
  | { kind: "lose" }
  | { kind: "hang" }
  | { kind: "answer"; status: number; headers?: Record<string, string>; body?: unknown };

export interface FakeGitHub {
  url: string;
  requests: FakeRequest[];
  unexpected: string[];
  addIssue(repo: string, fields?: Partial<FakeIssue>): FakeIssue;
  issues(repo: string): FakeIssue[];
  comments(repo: string, number: number): Array<{ id: number; body: string }>;
  addComment(repo: string, number: number, body: string): void;
  addEvent(repo: string, number: number, event: FakeEvent): void;
  /** Moves the fake's clock (which stamps created_at/updated_at) forward. */
  advance(ms: number): void;
  /** A person's edit in the web UI: changes fields and bumps updated_at. */
  personEdit(repo: string, number: number, fields: Partial<FakeIssue>): void;
  /** The next request matching method and path gets this fault instead of (or after) processing. */
  faultNext(method: string, path: RegExp, fault: Fault): void;
  close(): Promise<void>;
}

export interface FakeOptions {
  /** Lists oldest first whatever `direction` asks, like a server that ignores the parameter. */
  ignoreDirection?: boolean;
  tokens?: string[];
  login?: string;
  app?: { id: number; slug: string; installationId: number; installationToken: string };
}

const IssueInput = z.object({
  title: z.string().optional(),
  body: z.string().nullable().optional(),
  labels: z.array(z.string()).optional(),
  assignees: z.array(z.string()).optional(),
  state: z.enum(["open", "closed"]).optional(),
  state_reason: z.string().nullable().optional(),
});
const CommentInput = z.object({ body: z.string() });

type Reply = { status: number; body?: unknown; headers?: Record<string, string> };

const BASE_TIME = Date.parse("2026-01-01T00:00:00Z");

export async function startFakeGitHub(opts: FakeOptions = {}): Promise<FakeGitHub> {
  const tokens = new Set(opts.tokens ?? ["ghp_test"]);
  if (opts.app !== undefined) tokens.add(opts.app.installationToken);
  const repos = new Map<string, FakeIssue[]>();
  const comments = new Map<string, Array<{ id: number; body: string }>>();
  const events = new Map<string, FakeEvent[]>();
  const faults: Array<{ method: string; path: RegExp; fault: Fault }> = [];
  const requests: FakeRequest[] = [];
  const unexpected: string[] = [];
  let tick = 0;
  let nextId = 1000;
  let url = "";

  const now = (): string => new Date(BASE_TIME + ++tick * 1000).toISOString();
  const repoIssues = (repo: string): FakeIssue[] => {
    let list = repos.get(repo);
    if (list === undefined) repos.set(repo, (list = []));
    return list;
  };
  // GitHub's issue ids are global and unlike the per-repository numbers.
  let issueIds = 0;
  const addIssue = (repo: string, fields: Partial<FakeIssue> = {}): FakeIssue => {
    const list = repoIssues(repo);
    const at = now();
    issueIds += 1;
    const issue: FakeIssue = {
      id: 9_000_000 + issueIds,
      number: list.length + 1,
      title: "an issue",
      body: null,
      state: "open",
      state_reason: null,
      labels: [],
      assignees: [],
      created_at: at,
      updated_at: at,
      ...fields,
    };
    list.push(issue);
    return issue;
  };
  const render = (repo: string, issue: FakeIssue): Record<string, unknown> => ({
    ...issue,
    html_url: `https://github.test/${repo}/issues/${issue.number}`,
    repository_url: `${url}/repos/${repo}`,
    labels: issue.labels.map((name) => ({ name })),
    assignees: issue.assignees.map((login) => ({ login })),
  });

  function paged<T>(req: FakeRequest, items: T[]): Reply {
    const perPage = Number(req.query.get("per_page") ?? 30);
    const page = Number(req.query.get("page") ?? 1);
    const last = Math.max(1, Math.ceil(items.length / perPage));
    const pageUrl = (n: number): string => {
      const q = new URLSearchParams(req.query);
      q.set("page", String(n));
      return `<${url}${req.path}?${q.toString()}>`;
    };
    const links: string[] = [];
    if (page < last) links.push(`${pageUrl(page + 1)}; rel="next"`, `${pageUrl(last)}; rel="last"`);
    if (page > 1) links.push(`${pageUrl(1)}; rel="first"`, `${pageUrl(page - 1)}; rel="prev"`);
    const body = items.slice((page - 1) * perPage, page * perPage);
    const etag = `W/"${createHash("sha1").update(JSON.stringify(body)).digest("hex")}"`;
    if (req.headers["if-none-match"] === etag) return { status: 304, headers: { etag } };
    return { status: 200, body, headers: { etag, ...(links.length > 0 ? { link: links.join(", ") } : {}) } };
  }

  function listIssues(req: FakeRequest, repo: string): Reply {
    const labels = req.query.get("labels")?.split(",") ?? [];
    const state = req.query.get("state") ?? "open";
    const since = req.query.get("since");
    const sort = req.query.get("sort") === "updated" ? "updated_at" : "created_at";
    const sign = opts.ignoreDirection === true || req.query.get("direction") === "asc" ? 1 : -1;
    const items = repoIssues(repo)
      .filter((i) => labels.every((l) => i.labels.includes(l)))
      .filter((i) => state === "all" || i.state === state)
      .filter((i) => since === null || i.updated_at >= since)
      .sort((a, b) => sign * (a[sort] < b[sort] ? -1 : a[sort] > b[sort] ? 1 : a.number - b.number))
      .map((i) => render(repo, i));
    return paged(req, items);
  }

  function route(req: FakeRequest): Reply | null {
    const auth = req.headers.authorization ?? "";
    const m = (pattern: RegExp): RegExpExecArray | null => pattern.exec(req.path);
    if (
      opts.app !== undefined &&
      req.method === "POST" &&
      m(/^\/app\/installations\/(\d+)\/access_tokens$/)
    ) {
      if (!auth.startsWith("bearer ")) return { status: 401, body: { message: "JWT required" } };
      return {
        status: 201,
        body: {
          token: opts.app.installationToken,
          expires_at: new Date(Date.now() + 3_600_000).toISOString(),
        },
      };
    }
    if (opts.app !== undefined && auth.startsWith("bearer ")) {
      if (req.method === "GET" && req.path === "/app")
        return { status: 200, body: { id: opts.app.id, slug: opts.app.slug } };
      if (req.method === "GET" && m(/^\/repos\/[^/]+\/[^/]+\/installation$/))
        return { status: 200, body: { id: opts.app.installationId } };
      return null;
    }
    if (![...tokens].some((t) => auth === `token ${t}`))
      return { status: 401, body: { message: "Bad credentials" } };
    if (req.method === "GET" && req.path === "/user")
      return { status: 200, body: { login: opts.login ?? "threatbridge-bot" } };
    const issuesPath = m(/^\/repos\/([^/]+\/[^/]+)\/issues$/);
    if (issuesPath?.[1] !== undefined) {
      const repo = issuesPath[1];
      if (req.method === "GET") return listIssues(req, repo);
      if (req.method === "POST") {
        const input = IssueInput.parse(req.body);
        const fields = Object.fromEntries(Object.entries(input).filter(([, v]) => v !== undefined));
        return { status: 201, body: render(repo, addIssue(repo, fields)) };
      }
      return null;
    }
    const one = m(/^\/repos\/([^/]+\/[^/]+)\/issues\/(\d+)(\/comments|\/events)?$/);
    const repo = one?.[1];
    const issue = repo === undefined ? undefined : repoIssues(repo)[Number(one?.[2]) - 1];
    if (one === null || repo === undefined) return null;
    if (issue === undefined) return { status: 404, body: { message: "Not Found" } };
    const key = `${repo}#${issue.number}`;
    if (one[3] === "/comments") {
      const list = comments.get(key) ?? [];
      comments.set(key, list);
      if (req.method === "GET") return paged(req, list);
      if (req.method !== "POST") return null;
      const comment = { id: nextId++, body: CommentInput.parse(req.body).body };
      list.push(comment);
      return { status: 201, body: comment };
    }
    if (one[3] === "/events") return req.method === "GET" ? paged(req, events.get(key) ?? []) : null;
    if (req.method === "GET") return { status: 200, body: render(repo, issue) };
    if (req.method === "PATCH") {
      const patch = IssueInput.parse(req.body);
      for (const [field, value] of Object.entries(patch))
        if (value !== undefined) Object.assign(issue, { [field]: value });
      issue.updated_at = now();
      return { status: 200, body: render(repo, issue) };
    }
    return null;
  }

  async function handle(raw: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of raw) chunks.push(Buffer.from(chunk));
    const text = Buffer.concat(chunks).toString("utf8");
    const parsedUrl = new URL(raw.url ?? "/", "http://fake");
    const req: FakeRequest = {
      method: raw.method ?? "GET",
      path: parsedUrl.pathname,
      query: parsedUrl.searchParams,
      headers: raw.headers,
      body: text === "" ? undefined : JSON.parse(text),
    };
    requests.push(req);
    const faultIndex = faults.findIndex((f) => f.method === req.method && f.path.test(req.path));
    const fault = faultIndex < 0 ? undefined : faults.splice(faultIndex, 1)[0]?.fault;
    if (fault?.kind === "answer") {
      res.writeHead(fault.status, { "content-type": "application/json", ...fault.headers });
      res.end(JSON.stringify(fault.body ?? { message: "fault" }));
      return;
    }
    if (fault?.kind === "hang") {
      // Processed, then never answered: the client's timeout must end it.
      route(req);
      return;
    }
    const reply = route(req);
    if (fault?.kind === "lose") {
      res.socket?.destroy();
      return;
    }
    if (reply === null) {
      unexpected.push(`${req.method} ${req.path}`);
      res.writeHead(501, { "content-type": "application/json" });
      res.end(JSON.stringify({ message: "unexpected request" }));
      return;
    }
    res.writeHead(reply.status, { "content-type": "application/json", ...reply.headers });
    res.end(reply.status === 304 ? undefined : JSON.stringify(reply.body ?? {}));
  }

  const server = createServer((raw, res) => {
    handle(raw, res).catch((error: unknown) => {
      unexpected.push(`handler error: ${String(error)}`);
      res.destroy();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  url = `http://127.0.0.1:${typeof address === "object" && address !== null ? address.port : 0}`;
  return {
    url,
    requests,
    unexpected,
    addIssue,
    issues: repoIssues,
    comments: (repo, number) => comments.get(`${repo}#${number}`) ?? [],
    addComment(repo, number, body) {
      const key = `${repo}#${number}`;
      comments.set(key, [...(comments.get(key) ?? []), { id: nextId++, body }]);
    },
    addEvent(repo, number, event) {
      const key = `${repo}#${number}`;
      events.set(key, [...(events.get(key) ?? []), event]);
    },
    advance(ms) {
      tick += Math.ceil(ms / 1000);
    },
    personEdit(repo, number, fields) {
      const issue = repoIssues(repo)[number - 1];
      if (issue !== undefined) Object.assign(issue, fields, { updated_at: now() });
    },
    faultNext(method, path, fault) {
      faults.push({ method, path, fault });
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}
