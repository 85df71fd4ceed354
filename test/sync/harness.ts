import { ConfigSchema, type Config } from "../../src/config/index.js";
import type { EngineEvent } from "../../src/shared/index.js";
import { silentLogger } from "../../src/observability/index.js";
import { State, emptyState } from "../../src/sync/schema.js";
import {
  createContext,
  runCycle,
  type CycleReport,
  type StateCommit,
  type SyncContext,
} from "../../src/sync/index.js";
import { putQueue } from "../../src/sync/records/state-updates.js";
import { FakeGitHub } from "./fake-github.js";
import { FakeWorkflowGitHub } from "./fake-workflow.js";
import { FakePlatform, type FailingFake } from "./fake-platform.js";
import type { GitHubConversation } from "../../src/github/index.js";

export const REPO = "acme/threats";
export const ASSET = "00000000-0000-4000-8000-00000000a001";

export function threatId(n: number): string {
  return `00000000-0000-4000-8000-${n.toString(16).padStart(12, "0")}`;
}

export function makeConfig(extra: Record<string, unknown> = {}): Config {
  return ConfigSchema.parse({
    platform: {
      base_url: "http://127.0.0.1:1",
      token_url: "http://127.0.0.1:1/oauth/token",
      client_id: "id",
      client_secret: "secret",
    },
    github: { token: "t", repository: REPO, api_url: "http://127.0.0.1:2" },
    ...extra,
  });
}

/**
 * The engine over in-memory fakes, with a "disk" that holds the last persisted state: restart()
 * throws away everything in memory, as a crash would, and boots from the disk.
 */
export class Harness {
  readonly platform = new FakePlatform();
  disk: string | null = null;
  ctx!: SyncContext;
  /** A simulated crash: every call fails and nothing more reaches the disk, until restart(). */
  dead = false;
  /** Commits the engine made (one per `persist` with something changed), as sent. */
  commits: StateCommit[] = [];
  /** Every engine event, in order, across restarts (an observer like the audit log). */
  events: EngineEvent[] = [];
  /** How far the engine's clock runs ahead of real time (days passing without waiting). */
  clockOffsetMs = 0;
  /** Whether the state is deep-frozen (any in-place mutation throws); a test may turn it off. */
  freezeState = true;
  /** What a restart makes of the state read from the disk (a test may watch what is read of it). */
  onLoad: ((state: State) => State) | null = null;

  constructor(
    /** A test may change it and restart() (an operator's config change between two runs). */
    public config: Config = makeConfig(),
    /** A fake with sub-issues (fake-workflow.ts) gives the engine its workflow client too. */
    readonly github: FakeGitHub = new FakeGitHub(),
    /** Projects and comments (github/conversation.ts), for the features that use them; absent by default. */
    readonly conversation?: GitHubConversation & FailingFake,
  ) {
    this.platform.putAsset(ASSET, { name: "shop.example.com", type: "domain" });
    this.platform.isDead = () => this.dead;
    this.github.isDead = () => this.dead;
    if (this.conversation) this.conversation.isDead = () => this.dead;
    this.restart();
  }

  /** Kills the process at call `call` of one side, before or after that call takes effect. */
  crashAt(side: "platform" | "github" | "conversation", call: number, after: boolean): void {
    const target = side === "platform" ? this.platform : side === "github" ? this.github : this.conversation;
    if (!target) throw new Error("this harness has no conversation fake");
    target.failAt = { call: target.calls + call, after };
    target.onFail = () => {
      this.dead = true;
    };
  }

  restart(): void {
    this.dead = false;
    this.platform.failAt = null;
    this.github.failAt = null;
    if (this.conversation) this.conversation.failAt = null;
    const parsed = this.disk === null ? emptyState() : State.parse(JSON.parse(this.disk));
    const state = this.onLoad ? this.onLoad(parsed) : parsed;
    const ctx = createContext(
      {
        config: this.config,
        platform: this.platform,
        github: this.github,
        ...(this.github instanceof FakeWorkflowGitHub ? { workflow: this.github } : {}),
        ...(this.conversation ? { conversation: this.conversation } : {}),
        logger: silentLogger,
        clock: { now: () => Date.now() + this.clockOffsetMs },
        persist: async (commit) => {
          if (this.dead) throw new Error("the process is dead");
          this.disk = JSON.stringify(ctx.state);
          this.commits.push(commit);
        },
        // Any in-place mutation of the state throws: every change must go through a commit.
        freezeState: this.freezeState,
        observers: [(event) => this.events.push(event)],
      },
      state,
    );
    this.ctx = ctx;
  }

  cycle(): Promise<CycleReport> {
    return runCycle(this.ctx);
  }

  /** Cycles until one leaves nothing due (bounded). */
  async settle(max = 10): Promise<CycleReport> {
    let report = await this.cycle();
    for (let i = 1; i < max && (report.queue.total > 0 || !report.ok); i += 1) {
      for (const [id, { notBefore: _now, ...entry }] of Object.entries(this.ctx.state.queue))
        putQueue(this.ctx, id, entry);
      report = await this.cycle();
    }
    return report;
  }

  issues(repo = REPO) {
    return this.github.issues(repo);
  }

  issueFor(id: string, repo = REPO) {
    return this.issues(repo).filter((i) => i.threatId === id);
  }
}
