import type { IncomingMessage, ServerResponse } from "node:http";
import { z } from "zod";
import { createRouter } from "../shared/http-router.js";
import { StandInError } from "./errors.js";
import { issueSnapshot } from "./snapshots.js";
import type { Store } from "./store.js";
import type { PersonActions } from "./types.js";

/**
 * `/_sim/*` on the stand-in: what a person does in GitHub's web UI, over HTTP, for someone trying
 * the connector by hand (`simulate --with-github`) as tests do in-process through `person`. Like
 * the platform simulator's `/_sim/*`: no token, no rate-limit point, no fault. Each change is made
 * as the login named in `"as"`, never as the connector's bot, so the connector treats it as a
 * person's (a close sends its verdict). Every answer is JSON; a change answers the issue after it.
 *
 *   GET  /_sim/repos/{owner}/{repo}/issues                     the issues: number, title, state, ...
 *   POST /_sim/repos/{owner}/{repo}/issues/{number}/close      {"as": "alice", "reason": "completed"}
 *   POST /_sim/repos/{owner}/{repo}/issues/{number}/reopen     {"as": "alice"}
 *   POST /_sim/repos/{owner}/{repo}/issues/{number}/comments   {"as": "alice", "body": "text"}
 *   POST /_sim/repos/{owner}/{repo}/issues/{number}/assignees  {"as": "alice", "assignees": ["bob"]}
 */

export const PERSON_ROUTE_PREFIX = "/_sim/";
/** A person's comment is at most GitHub's 65,536 characters; the rest of a body is a few names. */
const MAX_BODY_CHARS = 256 * 1024;

/** A GitHub login: letters, digits and single hyphens (the connector's bot has `[bot]`, a person never). */
const Login = z.string().regex(/^[A-Za-z0-9](?:-?[A-Za-z0-9])*$/, "a person's GitHub login, e.g. alice");
const Close = z.strictObject({
  as: Login,
  reason: z.enum(["completed", "not_planned"]).default("completed"),
});
const Reopen = z.strictObject({ as: Login });
const Comment = z.strictObject({ as: Login, body: z.string().min(1) });
const Assign = z.strictObject({ as: Login, assignees: z.array(Login).min(1) });

interface Answer {
  status: number;
  body: unknown;
}

type Act = (repo: string, number: number, body: unknown) => void;

interface ControlRoute {
  method: string;
  pattern: string;
  act: Act | "list";
}

function parse<T>(schema: z.ZodType<T>, body: unknown): T {
  const result = schema.safeParse(body ?? {});
  if (!result.success) throw new BadRequest(z.prettifyError(result.error));
  return result.data;
}

class BadRequest extends Error {}

export function personRoutes(store: Store, person: Omit<PersonActions, "setIssueTypes">) {
  const routes: ControlRoute[] = [
    { method: "GET", pattern: "/_sim/repos/{owner}/{repo}/issues", act: "list" },
    {
      method: "POST",
      pattern: "/_sim/repos/{owner}/{repo}/issues/{number}/close",
      act: (repo, number, body) => {
        const b = parse(Close, body);
        person.close(repo, number, { reason: b.reason, login: b.as });
      },
    },
    {
      method: "POST",
      pattern: "/_sim/repos/{owner}/{repo}/issues/{number}/reopen",
      act: (repo, number, body) => person.reopen(repo, number, parse(Reopen, body).as),
    },
    {
      method: "POST",
      pattern: "/_sim/repos/{owner}/{repo}/issues/{number}/comments",
      act: (repo, number, body) => {
        const b = parse(Comment, body);
        person.comment(repo, number, b.body, b.as);
      },
    },
    {
      method: "POST",
      pattern: "/_sim/repos/{owner}/{repo}/issues/{number}/assignees",
      act: (repo, number, body) => {
        const b = parse(Assign, body);
        person.assign(repo, number, b.assignees, b.as);
      },
    },
  ];
  const match = createRouter(routes, (r) => r.pattern, { trailingSlash: true });

  function issueView(repo: string, number: number): unknown {
    const r = store.repoByFullName(repo);
    const issue = store.mustFindIssue(r, number);
    const s = issueSnapshot(issue, store.commentsOf(r, number).length);
    return {
      number: s.number,
      title: s.title,
      state: s.state,
      state_reason: s.stateReason,
      closed_by: s.closedBy,
      assignees: s.assignees,
      labels: s.labels,
      comments: s.comments,
    };
  }

  function answer(method: string, path: string, body: unknown): Answer {
    const found = match(method, path);
    if (found === null) return { status: 404, body: { message: `no control route ${method} ${path}` } };
    const { owner = "", repo = "", number } = found.params;
    const fullName = `${owner}/${repo}`;
    try {
      if (found.route.act === "list") {
        const r = store.repoByFullName(fullName);
        const numbers = r.issues
          .filter((i) => !i.deleted && !i.movedTo && !i.isPullRequest)
          .map((i) => i.number);
        return { status: 200, body: numbers.map((n) => issueView(fullName, n)) };
      }
      const n = Number(number);
      if (!Number.isInteger(n) || n < 1) return { status: 404, body: { message: `no issue ${number}` } };
      found.route.act(fullName, n, body);
      return { status: 200, body: issueView(fullName, n) };
    } catch (error) {
      if (error instanceof BadRequest) return { status: 400, body: { message: error.message } };
      if (error instanceof StandInError) return { status: 404, body: { message: error.message } };
      throw error;
    }
  }

  return async function handleControl(
    req: IncomingMessage,
    res: ServerResponse,
    path: string,
  ): Promise<void> {
    let text = "";
    for await (const chunk of req) {
      text += String(chunk);
      if (text.length > MAX_BODY_CHARS) {
        res.writeHead(413, { "content-type": "application/json; charset=utf-8" });
        res.end(`${JSON.stringify({ message: "the body is too large" })}\n`);
        return;
      }
    }
    let body: unknown;
    let reply: Answer;
    try {
      body = text.trim() === "" ? undefined : JSON.parse(text);
      reply = answer((req.method ?? "GET").toUpperCase(), path, body);
    } catch (error) {
      reply =
        error instanceof SyntaxError
          ? { status: 400, body: { message: `the body is not JSON: ${error.message}` } }
          : { status: 500, body: { message: String(error) } };
    }
    res.writeHead(reply.status, { "content-type": "application/json; charset=utf-8" });
    res.end(`${JSON.stringify(reply.body, null, 2)}\n`);
  };
}
