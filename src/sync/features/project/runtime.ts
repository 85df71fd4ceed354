import type { GitHubConversation } from "../../../github/index.js";
import type { Project } from "../../../github/projects.js";
import type { ProjectField } from "../../../github/project-schemas.js";
import type { Logger } from "../../../observability/index.js";
import { findField } from "./values.js";
import type { FeatureContext } from "../types.js";

/** The configured project and its fields as GitHub answered them, once per process. */
export interface ResolvedProject {
  project: Project;
  /** The configured fields found, by configured name (a name not found is left out, and said). */
  fields: ReadonlyMap<string, ProjectField>;
}

/** The project and its fields, looked up on first need; a missing project or API turns it off. */
export class ProjectRuntime {
  private lookup: Promise<ResolvedProject | null> | null = null;
  private offNow = false;
  private readonly said = new Set<string>();

  constructor(
    readonly conversation: GitHubConversation,
    private readonly ref: { owner: string; number: number; via: string; fields: readonly string[] },
    private readonly logger: Logger,
  ) {}

  get off(): boolean {
    return this.offNow;
  }

  /** The project and fields (GET the project, then its fields), or null when off. */
  resolve(): Promise<ResolvedProject | null> {
    this.lookup ??= this.read().catch((error: unknown) => {
      // A transient failure (5xx, network): not off; the next need asks again.
      this.lookup = null;
      throw error;
    });
    return this.lookup;
  }

  /** The project turned out missing mid-process (a write answered 404 on the project). */
  turnOff(status: number, message: string): void {
    this.offNow = true;
    this.sayOnce(
      "off",
      { project: this.name, status, detail: message },
      "the GitHub project is missing, or this GitHub has no projects API: project items are off for this process",
    );
  }

  /** Says a fact in the log once per process (a field not found, an option missing). */
  sayOnce(key: string, fields: object, message: string): void {
    if (this.said.has(key)) return;
    this.said.add(key);
    this.logger.warn(fields, message);
  }

  get name(): string {
    return `${this.ref.owner}/${this.ref.number}`;
  }

  private async read(): Promise<ResolvedProject | null> {
    const found = await this.conversation.getProject(this.ref);
    if (!found.available) {
      this.turnOff(found.status, found.message);
      return null;
    }
    const listed = await this.conversation.listProjectFields(found.project);
    if (!listed.available) {
      this.turnOff(listed.status, listed.message);
      return null;
    }
    const fields = new Map<string, ProjectField>();
    for (const name of this.ref.fields) {
      const field = findField(listed.fields, name);
      if (field) fields.set(name, field);
      else
        this.sayOnce(
          `field:${name}`,
          { project: this.name, field: name },
          "the GitHub project has no field of this name: it is left unset",
        );
    }
    return { project: found.project, fields };
  }
}

const RUNTIMES = new WeakMap<object, ProjectRuntime>();

/** The process's runtime (one per engine context), or null when projects are not configured or no client. */
export function runtimeFor(ctx: FeatureContext): ProjectRuntime | null {
  const config = ctx.config.github.project;
  if (config === undefined || ctx.conversation === undefined) return null;
  let runtime = RUNTIMES.get(ctx);
  if (!runtime) {
    runtime = new ProjectRuntime(
      ctx.conversation,
      {
        owner: config.owner,
        number: config.number,
        via: ctx.config.github.repository,
        fields: Object.keys(config.fields),
      },
      ctx.logger,
    );
    RUNTIMES.set(ctx, runtime);
  }
  return runtime;
}
