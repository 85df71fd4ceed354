// Slow and idle clients against the health port (contract: a connection whose request has not
// fully arrived within 10 s is closed; at most a bounded number of connections are held).
// `node bench/health-slow-clients.mjs [clients] [seconds]` after `npm run build`: starts the BUILT
// health server with a webhook route on 127.0.0.1, opens `clients` (default 30) connections that
// drip a webhook body at one byte a second, as many that drip their headers, and as many that send
// nothing, and prints how many of each are still connected after `seconds` (default 12); then how
// many of 1,000 idle connections the server holds at once. `closedAfterSeconds`: min/median/max of
// when each group's connections were closed (Infinity: still open 30 s later).
import net from "node:net";
import { clearInterval, setInterval } from "node:timers";
import { startHealthServer, silentLogger } from "../dist/observability/index.js";
import { createWebhookReceiver } from "../dist/webhooks/index.js";

const clients = Number(process.argv[2] ?? 30);
const seconds = Number(process.argv[3] ?? 12);
const PATH = "/github/webhook";

const server = await startHealthServer({
  host: "127.0.0.1",
  port: 0,
  liveness: () => ({ ok: true, body: {} }),
  readiness: () => ({ ok: true, body: {} }),
  metrics: () => Promise.resolve({ contentType: "text/plain", body: "" }),
  routes: {
    [PATH]: createWebhookReceiver({ secret: "bench-secret", logger: silentLogger, onIssue: () => true }),
  },
  logger: silentLogger,
});

/** One connection that sends `head` at once, then `drip` one byte a second; resolves on connect. */
function connect(head, drip) {
  return new Promise((resolve) => {
    const socket = net.connect(server.port, "127.0.0.1");
    const conn = { open: true, socket, timer: null, openedAt: Date.now(), closedAfterMs: null };
    // Read what the server answers (a 408): an unread socket never sees the server's close.
    socket.on("data", () => {});
    socket.on("error", () => {});
    socket.on("close", () => {
      conn.open = false;
      conn.closedAfterMs = Date.now() - conn.openedAt;
      clearInterval(conn.timer);
    });
    socket.on("connect", () => {
      if (head !== "") socket.write(head);
      let i = 0;
      if (drip !== "") {
        conn.timer = setInterval(() => {
          if (conn.open) socket.write(drip[i++ % drip.length]);
        }, 1000);
      }
      resolve(conn);
    });
  });
}

const bodyHead =
  `POST ${PATH} HTTP/1.1\r\nHost: 127.0.0.1\r\ncontent-type: application/json\r\n` +
  `x-github-event: issues\r\nx-github-delivery: d\r\ncontent-length: 100000\r\n\r\n`;
const groups = {
  "body dripped (1 B/s)": await Promise.all(Array.from({ length: clients }, () => connect(bodyHead, "{"))),
  "headers dripped (1 B/s)": await Promise.all(
    Array.from({ length: clients }, () => connect("GET /healthz HTTP/1.1\r\n", "x-slow: y\r\n")),
  ),
  "nothing sent": await Promise.all(Array.from({ length: clients }, () => connect("", ""))),
};
await new Promise((r) => setTimeout(r, seconds * 1000));
const result = { clients, seconds, stillConnected: {}, closedAfterSeconds: {} };
for (const [name, conns] of Object.entries(groups))
  result.stillConnected[name] = conns.filter((c) => c.open).length;
// Then up to 30 s more: when each group's connections were closed (min/median/max seconds).
const all = Object.values(groups).flat();
for (let i = 0; i < 300 && all.some((c) => c.open); i += 1) await new Promise((r) => setTimeout(r, 100));
for (const [name, conns] of Object.entries(groups)) {
  const times = conns.map((c) => (c.closedAfterMs ?? Infinity) / 1000).sort((a, b) => a - b);
  const at = (q) => times[Math.min(times.length - 1, Math.floor(q * times.length))];
  result.closedAfterSeconds[name] = [times[0], at(0.5), times[times.length - 1]].map((t) =>
    Number(t.toFixed(1)),
  );
  for (const c of conns) c.socket.destroy();
}

// Held at once: 1,000 idle connections opened together; those beyond the cap are closed at once.
const idle = await Promise.all(Array.from({ length: 1000 }, () => connect("", "")));
await new Promise((r) => setTimeout(r, 500));
result.idleOf1000HeldAfter500ms = idle.filter((c) => c.open).length;
for (const c of idle) c.socket.destroy();
console.log(JSON.stringify({ bench: "health-slow-clients", ...result }));
await server.close();
