import { request } from "node:http";
import { Writable } from "node:stream";
import { sign } from "@octokit/webhooks-methods";
import { afterEach, describe, expect, it } from "vitest";
import {
  createLogger,
  startHealthServer,
  type RunningHealthServer,
  type WebhookOutcome,
  type WebhookRejection,
} from "../../src/observability/index.js";
import { createWebhookReceiver, type IssueDeliveryNotice } from "../../src/webhooks/index.js";

/**
 * Contract, "GitHub webhooks (optional)": `run` accepts GitHub's `issues` deliveries at
 * `github.webhook.path`. A body whose `X-Hub-Signature-256` is not the HMAC-SHA256 of the raw body
 * under the secret gets 401 and is not read; a repeated `X-GitHub-Delivery` is answered 200 and
 * ignored; issues the connector does not manage are ignored. Over real HTTP on 127.0.0.1.
 */

const SECRET = "whsec-current-0123456789";
const OLD_SECRET = "whsec-previous-9876543210";
const PATH = "/github/webhook";
const THREAT = "3f6c1f8e-2b7a-4c1e-9a57-0d4f2b9e8c11";
const REPO = "acme/security-threats";

interface Harness {
  url: string;
  notices: IssueDeliveryNotice[];
  outcomes: string[];
  logs: () => Array<Record<string, unknown>>;
  rawLogs: () => string;
}

let server: RunningHealthServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function start(
  opts: { manages?: (n: IssueDeliveryNotice) => boolean; readTimeoutMs?: number } = {},
): Promise<Harness> {
  let logText = "";
  const logger = createLogger({
    level: "debug",
    destination: new Writable({
      write(chunk: Buffer, _enc, done) {
        logText += chunk.toString();
        done();
      },
    }),
  });
  const notices: IssueDeliveryNotice[] = [];
  const outcomes: string[] = [];
  const receiver = createWebhookReceiver({
    secret: SECRET,
    previousSecrets: [OLD_SECRET],
    logger,
    onIssue: (notice) => {
      notices.push(notice);
      return opts.manages ? opts.manages(notice) : notice.threatId !== null;
    },
    onOutcome: (outcome: WebhookOutcome, reason?: WebhookRejection) =>
      outcomes.push(reason === undefined ? outcome : `${outcome}:${reason}`),
    ...(opts.readTimeoutMs !== undefined ? { readTimeoutMs: opts.readTimeoutMs } : {}),
  });
  server = await startHealthServer({
    host: "127.0.0.1",
    port: 0,
    liveness: () => ({ ok: true, body: {} }),
    readiness: () => ({ ok: true, body: {} }),
    metrics: () => Promise.resolve({ contentType: "text/plain", body: "" }),
    routes: { [PATH]: receiver },
  });
  const rawLogs = (): string => logText;
  const logs = (): Array<Record<string, unknown>> =>
    logText
      .split("\n")
      .filter((l) => l.trim() !== "")
      .map((l) => JSON.parse(l) as Record<string, unknown>);
  return { url: `${server.url}${PATH}`, notices, outcomes, logs, rawLogs };
}

interface Sent {
  status: number;
  body: string;
}

/** One raw request (node:http, so that bodies, lengths and chunking are exactly what the test says). */
function send(
  url: string,
  opts: { method?: string; headers?: Record<string, string>; body?: Buffer | string; chunks?: Buffer[] },
): Promise<Sent> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: opts.method ?? "POST", headers: opts.headers ?? {} }, (res) => {
      let body = "";
      res.on("data", (d: Buffer) => (body += d.toString()));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
    });
    // The receiver may answer (413) and close before the whole body is written: that is its right.
    req.on("error", (error) => reject(error));
    if (opts.chunks) {
      for (const chunk of opts.chunks) req.write(chunk);
      req.end();
    } else req.end(opts.body);
  });
}

function issuesPayload(
  action: string,
  body: string | null = `Threat\n<!-- threatbridge:threat=${THREAT} -->`,
) {
  return JSON.stringify({
    action,
    issue: {
      id: 1001,
      number: 7,
      state: action === "closed" ? "closed" : "open",
      state_reason: action === "closed" ? "completed" : null,
      body,
      labels: [{ name: "threatbridge" }],
      html_url: `https://github.com/${REPO}/issues/7`,
    },
    repository: { id: 5, full_name: REPO, name: "security-threats" },
    sender: { login: "alice", id: 9 },
  });
}

let deliveries = 0;
async function signed(
  payload: string,
  opts: { event?: string; secret?: string; delivery?: string } = {},
): Promise<{ headers: Record<string, string>; body: string }> {
  deliveries += 1;
  return {
    body: payload,
    headers: {
      "content-type": "application/json",
      "x-github-event": opts.event ?? "issues",
      "x-github-delivery": opts.delivery ?? `delivery-${deliveries}-${Date.now()}`,
      "x-hub-signature-256": await sign(opts.secret ?? SECRET, payload),
    },
  };
}

describe("GitHub webhook receiver (contract: GitHub webhooks)", () => {
  it("a close of a managed issue, signed with the secret, is accepted (2xx) and handed on with its marker", async () => {
    const h = await start();
    const res = await send(h.url, await signed(issuesPayload("closed")));
    expect(res.status).toBe(202);
    expect(h.notices).toEqual([
      expect.objectContaining({ action: "closed", repo: REPO, number: 7, threatId: THREAT }),
    ]);
    expect(h.outcomes).toEqual(["accepted"]);
  });

  it("a wrong signature is 401 and the payload is never parsed nor handed on; one log line, no body, no secret", async () => {
    const h = await start();
    const wrong = await signed(issuesPayload("closed"), { secret: "not-the-secret-at-all" });
    expect((await send(h.url, wrong)).status).toBe(401);
    // Not JSON at all: a body that is not read gives 401, never 400.
    const garbage = await signed("{not json");
    garbage.headers["x-hub-signature-256"] = `sha256=${"0".repeat(64)}`;
    expect((await send(h.url, garbage)).status).toBe(401);
    expect(h.notices).toEqual([]);
    expect(h.outcomes).toEqual(["rejected:signature", "rejected:signature"]);
    const lines = h.logs();
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatchObject({ level: "warn", status: 401, reason: "signature" });
    expect(h.rawLogs()).not.toContain(SECRET);
    expect(h.rawLogs()).not.toContain(THREAT);
    expect(h.rawLogs()).not.toContain("not json");
  });

  it("a missing signature is 401", async () => {
    const h = await start();
    const unsigned = await signed(issuesPayload("closed"));
    delete unsigned.headers["x-hub-signature-256"];
    const res = await send(h.url, unsigned);
    expect(res.status).toBe(401);
    expect(h.notices).toEqual([]);
  });

  it("rotation: a delivery signed with a previous secret is still accepted", async () => {
    const h = await start();
    const res = await send(h.url, await signed(issuesPayload("reopened"), { secret: OLD_SECRET }));
    expect(res.status).toBe(202);
    expect(h.notices.map((n) => n.action)).toEqual(["reopened"]);
  });

  it("replay: a repeated X-GitHub-Delivery is answered 200 and ignored", async () => {
    const h = await start();
    const delivery = await signed(issuesPayload("closed"), {
      delivery: "a1b2c3d4-0000-4000-8000-000000000001",
    });
    expect((await send(h.url, delivery)).status).toBe(202);
    const again = await send(h.url, delivery);
    expect(again.status).toBe(200);
    expect(h.notices).toHaveLength(1);
    expect(h.outcomes).toEqual(["accepted", "duplicate"]);
  });

  it("a body over 1 MiB is 413, whether its length is declared or it arrives chunked; never handed on", async () => {
    const h = await start();
    const big = Buffer.alloc(1024 * 1024 + 1, 0x20);
    const declared = await send(h.url, {
      headers: {
        "content-type": "application/json",
        "x-hub-signature-256": await sign(SECRET, big.toString()),
      },
      body: big,
    }).catch(() => null);
    expect(declared?.status).toBe(413);
    const chunked = await send(h.url, {
      headers: { "content-type": "application/json", "transfer-encoding": "chunked" },
      chunks: [Buffer.alloc(600 * 1024, 0x20), Buffer.alloc(600 * 1024, 0x20)],
    }).catch(() => null);
    expect(chunked?.status).toBe(413);
    expect(h.notices).toEqual([]);
    expect(h.outcomes).toEqual(["rejected:size", "rejected:size"]);
  });

  it("a method other than POST is 405 with Allow: POST", async () => {
    const h = await start();
    const res = await send(h.url, { method: "GET" });
    expect(res.status).toBe(405);
    expect(h.outcomes).toEqual(["rejected:method"]);
  });

  it("a signed body that is not JSON, or JSON that is no issues payload, is 400", async () => {
    const h = await start();
    expect((await send(h.url, await signed("{not json"))).status).toBe(400);
    const shapeless = JSON.stringify({ action: "closed", issue: { number: "seven" }, repository: {} });
    expect((await send(h.url, await signed(shapeless))).status).toBe(400);
    expect(h.notices).toEqual([]);
    expect(h.outcomes).toEqual(["rejected:payload", "rejected:payload"]);
  });

  it("ping is 200; other events are 202 and ignored; issues actions without a verdict are ignored", async () => {
    const h = await start();
    const ping = await signed(JSON.stringify({ zen: "Keep it logically awesome.", hook_id: 1 }), {
      event: "ping",
    });
    expect((await send(h.url, ping)).status).toBe(200);
    const push = await signed(JSON.stringify({ ref: "refs/heads/main" }), { event: "push" });
    expect((await send(h.url, push)).status).toBe(202);
    expect((await send(h.url, await signed(issuesPayload("labeled")))).status).toBe(200);
    expect(h.notices).toEqual([]);
    expect(h.outcomes).toEqual(["ignored", "ignored", "ignored"]);
  });

  it("an issues action that carries no verdict is answered 200 and ignored whatever its issue shows (GitHub's payloads leave out fields a close carries)", async () => {
    const h = await start();
    // GitHub's schema marks an issue's `state` optional in most actions' payloads; a `deleted` or
    // `transferred` one may name the issue by little more than its number.
    const shapes = [
      { action: "labeled", issue: { number: 7, title: "t", body: null }, label: { name: "x" } },
      { action: "typed", issue: { number: 7 }, type: { name: "Bug" } },
      { action: "deleted", issue: { id: 1001, number: 7, state: "open" } },
      { action: "transferred", issue: { number: 7 }, changes: { new_issue: { number: 1 } } },
    ];
    for (const shape of shapes) {
      const payload = JSON.stringify({
        ...shape,
        repository: { id: 5, full_name: REPO },
        sender: { login: "alice" },
      });
      expect((await send(h.url, await signed(payload))).status, shape.action).toBe(200);
    }
    expect(h.notices).toEqual([]);
    expect(h.outcomes).toEqual(["ignored", "ignored", "ignored", "ignored"]);
  });

  it("a close whose issue has no `state` field is still a close of that issue (the action says it)", async () => {
    const h = await start();
    const payload = JSON.stringify({
      action: "closed",
      issue: { number: 7, body: `<!-- threatbridge:threat=${THREAT} -->`, state_reason: "not_planned" },
      repository: { full_name: REPO },
      sender: { login: "alice" },
    });
    expect((await send(h.url, await signed(payload))).status).toBe(202);
    expect(h.notices).toEqual([expect.objectContaining({ action: "closed", number: 7, threatId: THREAT })]);
  });

  it("an issue the connector does not manage is answered 200 and ignored", async () => {
    const h = await start();
    const res = await send(h.url, await signed(issuesPayload("closed", "A person's own issue, no marker")));
    expect(res.status).toBe(200);
    expect(h.notices).toEqual([expect.objectContaining({ threatId: null })]);
    expect(h.outcomes).toEqual(["ignored"]);
  });

  it("remembers a bounded number of delivery ids: memory stays flat, the newest are still refused", async () => {
    const { deliveryIds } = await import("../../src/webhooks/index.js");
    const ids = deliveryIds(3);
    for (const id of ["a", "b", "c", "d"]) expect(ids.add(id)).toBe(true);
    expect(ids.size()).toBe(3);
    expect(ids.add("d")).toBe(false);
    expect(ids.add("a")).toBe(true); // forgotten: the oldest left when "d" came
  });

  it("GitHub's form encoding (application/x-www-form-urlencoded): the ping and every delivery are 400, and the answer names application/json", async () => {
    const h = await start();
    const form = async (event: string, json: string) => {
      const body = `payload=${encodeURIComponent(json)}`;
      const delivery = await signed(body, { event });
      delivery.headers["content-type"] = "application/x-www-form-urlencoded";
      return send(h.url, delivery);
    };
    // Before, the ping passed (200) and every issues delivery after it failed as "not JSON".
    const ping = await form("ping", JSON.stringify({ zen: "Keep it logically awesome.", hook_id: 1 }));
    expect(ping.status).toBe(400);
    expect(JSON.parse(ping.body)).toEqual({
      error:
        "the webhook's content type must be \"application/json\" (GitHub: the webhook's settings, Content type)",
    });
    const closed = await form("issues", issuesPayload("closed"));
    expect(closed.status).toBe(400);
    expect(JSON.parse(closed.body)).toEqual(JSON.parse(ping.body));
    expect(h.notices).toEqual([]);
    expect(h.outcomes).toEqual(["rejected:content_type", "rejected:content_type"]);
    // JSON with a charset is JSON.
    const charset = await signed(issuesPayload("closed"));
    charset.headers["content-type"] = "application/json; charset=utf-8";
    expect((await send(h.url, charset)).status).toBe(202);
  });

  it("a body that has not all arrived within the read deadline is 408 and its connection closed; never handed on", async () => {
    const h = await start({ readTimeoutMs: 200 });
    const payload = issuesPayload("closed");
    const delivery = await signed(payload);
    const answer = await new Promise<{ status: number; closed: boolean }>((resolve, reject) => {
      const req = request(
        h.url,
        { method: "POST", headers: { ...delivery.headers, "content-length": String(payload.length) } },
        (res) => {
          res.resume();
          res.on("end", () =>
            resolve({ status: res.statusCode ?? 0, closed: res.headers.connection === "close" }),
          );
        },
      );
      req.on("error", reject);
      // One byte, then nothing: a client that drips (or stalls) its body.
      req.write(payload.slice(0, 1));
    });
    expect(answer).toEqual({ status: 408, closed: true });
    expect(h.notices).toEqual([]);
    expect(h.outcomes).toEqual(["rejected:timeout"]);
  });
});
