import type { IncomingMessage, ServerResponse } from "node:http";
import { ProblemError } from "./problems.js";

/** What a handler answers; the server adds `X-Request-ID` and writes it. */
export interface Reply {
  status: number;
  /** Serialized as JSON unless `text` is given. */
  json?: unknown;
  text?: string;
  contentType?: string;
  headers?: Readonly<Record<string, string>>;
}

/** Notes have no length limit in the spec; this cap only protects the process. */
const MAX_BODY_BYTES = 32 * 1024 * 1024;

export async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    const buffer = Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk));
    size += buffer.length;
    if (size > MAX_BODY_BYTES) throw new ProblemError("request/validation", "request body too large");
    chunks.push(buffer);
  }
  return Buffer.concat(chunks).toString("utf8");
}

/** Malformed JSON is a validation problem (spec, PATCH rule 2 and Errors: 422). */
export function parseJson(text: string): unknown {
  try {
    const value: unknown = JSON.parse(text);
    return value;
  } catch (error) {
    throw new ProblemError("request/validation", "the request body is not valid JSON", { cause: error });
  }
}

export function writeReply(res: ServerResponse, reply: Reply): void {
  for (const [name, value] of Object.entries(reply.headers ?? {})) res.setHeader(name, value);
  let payload: string | undefined = reply.text;
  if (payload === undefined && reply.json !== undefined) payload = JSON.stringify(reply.json);
  if (payload === undefined) {
    res.writeHead(reply.status);
    res.end();
    return;
  }
  res.writeHead(reply.status, {
    "Content-Type": reply.contentType ?? "application/json",
    "Content-Length": Buffer.byteLength(payload),
  });
  res.end(payload);
}
