import type { StandInDelivery, StandInWebhookOptions, StandInWebhooks } from "./types.js";
import { randomUUID } from "node:crypto";
import { sign } from "@octokit/webhooks-methods";
import { issue as issueShape, user, type ShapeContext } from "./shapes.js";
import type { IssueRecord, RepoRecord, Store } from "./store.js";

/** Signed `issues` deliveries as GitHub sends them, POSTed in the background when a person closes or reopens. */

export interface WebhookSender extends StandInWebhooks {
  issueChanged(r: RepoRecord, issue: IssueRecord, action: "closed" | "reopened", login: string): void;
}

interface Sent {
  record: StandInDelivery;
  body: string;
}

export function createWebhookSender(
  opts: StandInWebhookOptions | undefined,
  store: Store,
  shape: () => ShapeContext,
  now: () => number,
): WebhookSender {
  const sent: Sent[] = [];
  const inFlight = new Set<Promise<unknown>>();

  async function post(record: StandInDelivery, body: string): Promise<number | null> {
    if (!opts) return null;
    try {
      const res = await fetch(opts.url, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          "user-agent": "GitHub-Hookshot/stand-in",
          "x-github-event": record.event,
          "x-github-delivery": record.id,
          "x-hub-signature-256": await sign(opts.secret, body),
        },
        body,
        signal: AbortSignal.timeout(10_000),
      });
      await res.arrayBuffer();
      return res.status;
    } catch {
      return null;
    }
  }

  function track<T>(promise: Promise<T>): Promise<T> {
    inFlight.add(promise);
    void promise.finally(() => inFlight.delete(promise));
    return promise;
  }

  return {
    issueChanged(r, issue, action, login) {
      if (!opts) return;
      const ctx = shape();
      const payload = {
        action,
        issue: issueShape(ctx, r, issue, store.commentsOf(r, issue.number).length, { single: false }),
        repository: {
          id: r.id,
          node_id: Buffer.from(`Repository${r.id}`).toString("base64"),
          name: r.name,
          full_name: `${r.owner}/${r.name}`,
          owner: user(ctx, r.owner),
          private: true,
          html_url: `${ctx.baseUrl}/${r.owner}/${r.name}`,
          url: `${ctx.baseUrl}/repos/${r.owner}/${r.name}`,
        },
        sender: user(ctx, login),
      };
      const record: StandInDelivery = {
        id: randomUUID(),
        event: "issues",
        action,
        repo: `${r.owner}/${r.name}`,
        number: issue.number,
        sentAt: now(),
        status: null,
      };
      const body = JSON.stringify(payload);
      sent.push({ record, body });
      void track(
        post(record, body).then((status) => {
          record.status = status;
        }),
      );
    },
    deliveries: () => sent.map((s) => ({ ...s.record })),
    redeliver(id) {
      const found = sent.find((s) => s.record.id === id);
      if (!found) return Promise.resolve(null);
      return track(post(found.record, found.body));
    },
    async settled() {
      while (inFlight.size > 0) await Promise.allSettled([...inFlight]);
    },
  };
}
