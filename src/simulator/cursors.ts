import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import { z } from "zod";
import { ProblemError } from "./problems.js";

/** The streams a cursor can belong to (spec, list rule 5: used only with the endpoint that issued it). */
export type CursorEndpoint = "assets" | "threats" | "related" | "asset-threats";

const Payload = z.strictObject({
  v: z.literal(1),
  e: z.enum(["assets", "threats", "related", "asset-threats"]),
  p: z.number().int().nonnegative(),
});

export interface CursorCodec {
  encode(endpoint: CursorEndpoint, position: number): string;
  /** The position inside the endpoint's stream, or 400 `request/invalid-cursor`. */
  decode(endpoint: CursorEndpoint, cursor: string): number;
}

/** Cursors are base64url JSON plus an HMAC, so corrupted or hand-built ones are recognised (list rule 5). */
export function createCursorCodec(secret: string | null): CursorCodec {
  const key = secret ?? randomBytes(32).toString("hex");
  const sign = (body: string): string =>
    createHmac("sha256", key).update(body).digest("base64url").slice(0, 32);
  const invalid = (why: string, cause?: unknown): ProblemError =>
    new ProblemError("request/invalid-cursor", `the cursor is not valid for this endpoint: ${why}`, {
      cause,
    });
  return {
    encode(endpoint, position) {
      const body = Buffer.from(JSON.stringify({ v: 1, e: endpoint, p: position })).toString("base64url");
      return `${body}.${sign(body)}`;
    },
    decode(endpoint, cursor) {
      const [body, mac, extra] = cursor.split(".");
      if (body === undefined || mac === undefined || extra !== undefined) throw invalid("malformed");
      const expected = Buffer.from(sign(body));
      const given = Buffer.from(mac);
      if (given.length !== expected.length || !timingSafeEqual(given, expected))
        throw invalid("bad signature");
      let payload: z.infer<typeof Payload>;
      try {
        payload = Payload.parse(JSON.parse(Buffer.from(body, "base64url").toString("utf8")));
      } catch (error) {
        throw invalid("unreadable", error);
      }
      if (payload.e !== endpoint) throw invalid(`it was issued by another endpoint`);
      return payload.p;
    },
  };
}
