import type { IncomingMessage, ServerResponse } from "node:http";
import { verify } from "@octokit/webhooks-methods";
import { parseMarker } from "../github/index.js";
import {
  REQUEST_TIMEOUT_MS,
  type Logger,
  type RouteHandler,
  type WebhookOutcome,
  type WebhookRejection,
} from "../observability/index.js";
import { deliveryIds } from "./delivery-ids.js";
import { IssuesAction, IssuesDelivery, VERDICT_ACTIONS } from "./payload.js";

/**
 * GitHub's webhook deliveries (contract, "GitHub webhooks"): read up to the size limit, verified
 * (`X-Hub-Signature-256`, constant time) under the secret or a previous one before parsing, and
 * answered at once; `onIssue` only notes the work. A bad request is one log line, never a secret.
 */

/** GitHub caps a delivery's payload at 25 MB, but an `issues` delivery is a few kilobytes. */
export const MAX_BODY_BYTES = 1024 * 1024;
/** The body's own deadline, a second after the health port's, whose 408 comes first. */
const READ_TIMEOUT_MS = REQUEST_TIMEOUT_MS + 1_000;
/** Delivery ids remembered against replays (about 1 MB of memory). */
const REMEMBERED_DELIVERIES = 10_000;
/** GitHub's delivery ids are GUIDs; a longer one is not GitHub's. */
const MAX_DELIVERY_ID_LENGTH = 100;

/** An `issues` delivery about a possible verdict, as the receiver hands it on. */
export interface IssueDeliveryNotice {
  deliveryId: string;
  action: string;
  /** `owner/name` as GitHub spells it. */
  repo: string;
  number: number;
  /** The threat named by the issue body's hidden marker, if it carries one. */
  threatId: string | null;
}

export interface WebhookReceiverOptions {
  secret: string;
  /** Secrets still accepted during a rotation. */
  previousSecrets?: readonly string[];
  logger: Logger;
  /** A verified delivery that may carry a verdict; answers whether the connector manages the issue. Never waits. */
  onIssue(notice: IssueDeliveryNotice): boolean;
  /** Told what became of each delivery (metrics). */
  onOutcome?(outcome: WebhookOutcome, reason?: WebhookRejection): void;
  /** Default 1 MiB. */
  maxBodyBytes?: number;
  /** How many delivery ids are remembered against replays; default 10,000. */
  rememberDeliveries?: number;
  /** How long the body may take after the headers; a dripping client is answered 408. */
  readTimeoutMs?: number;
}

function header(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return typeof value === "string" && value !== "" ? value : undefined;
}

function answer(res: ServerResponse, status: number, body: Record<string, unknown>, close = false): void {
  const text = `${JSON.stringify(body)}\n`;
  res.writeHead(status, {
    "content-type": "application/json; charset=utf-8",
    "content-length": Buffer.byteLength(text),
    "cache-control": "no-store",
    // A request whose body was not read to its end cannot share its connection with the next one.
    ...(close ? { connection: "close" } : {}),
  });
  res.end(text);
}

/** The raw body, or "size" past `max` bytes, or "timeout" past `timeoutMs`. */
function readBody(
  req: IncomingMessage,
  max: number,
  timeoutMs: number,
): Promise<Buffer | "size" | "timeout"> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const timer = setTimeout(() => {
      cleanup();
      req.pause();
      resolve("timeout");
    }, timeoutMs);
    const cleanup = (): void => {
      clearTimeout(timer);
      req.off("data", onData);
      req.off("end", onEnd);
      req.off("error", onError);
    };
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (size > max) {
        cleanup();
        req.pause();
        resolve("size");
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = (): void => {
      cleanup();
      resolve(Buffer.concat(chunks, size));
    };
    const onError = (error: Error): void => {
      cleanup();
      reject(error);
    };
    req.on("data", onData);
    req.on("end", onEnd);
    req.on("error", onError);
  });
}

async function verified(secrets: readonly string[], payload: string, signature: string): Promise<boolean> {
  for (const secret of secrets) {
    // verify throws on an empty payload or signature: that is no valid signature either.
    if (await verify(secret, payload, signature).catch(() => false)) return true;
  }
  return false;
}

/** `application/json` (parameters such as a charset allowed); a delivery without the header is read as JSON. */
function isJson(contentType: string | undefined): boolean {
  if (contentType === undefined) return true;
  return contentType.split(";")[0]?.trim().toLowerCase() === "application/json";
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

export function createWebhookReceiver(opts: WebhookReceiverOptions): RouteHandler {
  const secrets = [opts.secret, ...(opts.previousSecrets ?? [])].filter((s) => s !== "");
  const recent = deliveryIds(opts.rememberDeliveries ?? REMEMBERED_DELIVERIES);
  const maxBytes = opts.maxBodyBytes ?? MAX_BODY_BYTES;
  const { logger } = opts;

  return async (req, res) => {
    const delivery = header(req, "x-github-delivery");
    const event = header(req, "x-github-event");
    const outcome = (o: WebhookOutcome, reason?: WebhookRejection): void => opts.onOutcome?.(o, reason);
    const reject = (status: number, reason: WebhookRejection, why: string, close = false): void => {
      outcome("rejected", reason);
      logger.warn(
        { status, reason, delivery: delivery?.slice(0, MAX_DELIVERY_ID_LENGTH), event: event?.slice(0, 50) },
        `webhook delivery refused: ${why}`,
      );
      answer(res, status, { error: why }, close);
    };
    const ignore = (status: number, why: string): void => {
      outcome("ignored");
      logger.debug({ delivery, event }, `webhook delivery ignored: ${why}`);
      answer(res, status, { ignored: why });
    };

    if (req.method !== "POST") {
      res.setHeader("allow", "POST");
      reject(405, "method", "only POST is accepted here", true);
      return;
    }
    const declared = Number(header(req, "content-length") ?? "0");
    if (declared > maxBytes) {
      reject(413, "size", `the body is over ${maxBytes} bytes`, true);
      return;
    }
    const raw = await readBody(req, maxBytes, opts.readTimeoutMs ?? READ_TIMEOUT_MS);
    if (raw === "size") {
      reject(413, "size", `the body is over ${maxBytes} bytes`, true);
      return;
    }
    if (raw === "timeout") {
      reject(408, "timeout", "the body did not arrive in time", true);
      return;
    }
    const payload = raw.toString("utf8");
    const signature = header(req, "x-hub-signature-256");
    if (signature === undefined || !(await verified(secrets, payload, signature))) {
      reject(
        401,
        "signature",
        signature === undefined ? "no X-Hub-Signature-256" : "X-Hub-Signature-256 does not match",
      );
      return;
    }
    // GitHub offers form encoding too: every delivery, the ping included, says to choose JSON.
    if (!isJson(header(req, "content-type"))) {
      reject(
        400,
        "content_type",
        "the webhook's content type must be \"application/json\" (GitHub: the webhook's settings, Content type)",
      );
      return;
    }
    if (delivery === undefined || delivery.length > MAX_DELIVERY_ID_LENGTH || event === undefined) {
      reject(400, "payload", "X-GitHub-Delivery and X-GitHub-Event are required");
      return;
    }
    if (!recent.add(delivery)) {
      outcome("duplicate");
      logger.debug({ delivery, event }, "webhook delivery seen before; ignored");
      answer(res, 200, { duplicate: delivery });
      return;
    }
    if (event === "ping") {
      ignore(200, "ping");
      return;
    }
    if (event !== "issues") {
      ignore(202, `the connector reads only issues events, not ${event.slice(0, 50)}`);
      return;
    }
    const json = parseJson(payload);
    const head = IssuesAction.safeParse(json);
    if (!head.success) {
      reject(400, "payload", "not an issues event's JSON payload");
      return;
    }
    if (!VERDICT_ACTIONS.has(head.data.action)) {
      ignore(200, `action ${head.data.action.slice(0, 50)} carries no verdict`);
      return;
    }
    const parsed = IssuesDelivery.safeParse(json);
    if (!parsed.success) {
      reject(400, "payload", "not an issues event's JSON payload");
      return;
    }
    const { action, issue, repository } = parsed.data;
    const notice: IssueDeliveryNotice = {
      deliveryId: delivery,
      action,
      repo: repository.full_name,
      number: issue.number,
      threatId: parseMarker(issue.body),
    };
    if (!opts.onIssue(notice)) {
      ignore(200, "not an issue the connector manages");
      return;
    }
    outcome("accepted");
    logger.debug(
      { delivery, issue: `${notice.repo}#${notice.number}`, action },
      "webhook delivery accepted; reading the issue",
    );
    answer(res, 202, { accepted: delivery });
  };
}
