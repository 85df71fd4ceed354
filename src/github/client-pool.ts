import { parseResponse } from "./errors.js";
import type { OctokitAuth } from "./octokit-factory.js";
import { getPage, type RestContext } from "./rest-calls.js";
import { GitHubApp, GitHubInstallation, GitHubUser } from "./schemas.js";

/** Who the connector acts as: a user's login, or an App's bot login and slug. */
interface SelfIdentity {
  login: string;
  appSlug: string | null;
}

/** The REST context for a repository: a token serves all; an App acts through its installation (found once per owner). */
interface ClientPool {
  forRepo(repo: string): Promise<RestContext>;
  whoAmI(): Promise<SelfIdentity>;
}

interface ClientPoolOptions {
  auth: OctokitAuth;
  makeContext(auth: OctokitAuth): RestContext;
}

function ownerOf(repo: string): string {
  return repo.slice(0, repo.indexOf("/"));
}

export function createClientPool(opts: ClientPoolOptions): ClientPool {
  const { auth } = opts;
  // Caches live in the pool, one per gateway: no module-level state.
  const installations = new Map<string, Promise<RestContext>>();
  let direct: RestContext | null = null;
  let appLevel: RestContext | null = null;
  let self: Promise<SelfIdentity> | null = null;

  function directContext(): RestContext {
    direct ??= opts.makeContext(auth);
    return direct;
  }

  /** The App's own (JWT) client: app-level routes only, such as finding installations. */
  function appContext(): RestContext {
    if (auth.kind !== "app") return directContext();
    appLevel ??= opts.makeContext({ kind: "app", appId: auth.appId, privateKey: auth.privateKey });
    return appLevel;
  }

  async function discoverInstallation(repo: string): Promise<RestContext> {
    if (auth.kind !== "app") return directContext();
    const page = await getPage(appContext(), `/repos/${repo}/installation`);
    const installation = parseResponse(GitHubInstallation, page.data, "installation");
    return opts.makeContext({ ...auth, installationId: installation.id });
  }

  async function identify(): Promise<SelfIdentity> {
    if (auth.kind === "token") {
      const user = parseResponse(GitHubUser, (await getPage(directContext(), "/user")).data, "user");
      return { login: user.login, appSlug: null };
    }
    // An App acts as its bot user `<slug>[bot]`; `GET /app` is answered with the App's JWT.
    const app = parseResponse(GitHubApp, (await getPage(appContext(), "/app")).data, "app");
    return { login: `${app.slug}[bot]`, appSlug: app.slug };
  }

  return {
    forRepo(repo) {
      if (auth.kind === "token" || auth.installationId !== undefined) return Promise.resolve(directContext());
      const owner = ownerOf(repo).toLowerCase();
      let context = installations.get(owner);
      if (context === undefined) {
        context = discoverInstallation(repo);
        // A failed discovery is not cached: the next call asks again.
        context.catch(() => installations.delete(owner));
        installations.set(owner, context);
      }
      return context;
    },
    whoAmI() {
      if (self === null) {
        self = identify();
        self.catch(() => {
          self = null;
        });
      }
      return self;
    },
  };
}
