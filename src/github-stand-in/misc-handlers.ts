import type { components } from "@octokit/openapi-types";
import type { Auth } from "./auth.js";
import type { HandlerDeps } from "./deps.js";
import { actorOf, repoOf } from "./deps.js";
import type { PrimaryLimit } from "./limits.js";
import type { Reply, RequestContext, Route } from "./router.js";
import { notFound } from "./replies.js";
import { DEFAULT_PERMISSIONS, settingsOf } from "./repo-settings.js";
import { isoSeconds, user, type ApiRateLimit } from "./shapes.js";

type RateLimitOverview = components["schemas"]["rate-limit-overview"];

/** The permissions the stand-in's app asks for: what the connector needs on issues. */
const APP_PERMISSIONS = { issues: "write", metadata: "read" } as const;

export function miscRoutes(deps: HandlerDeps, primary: PrimaryLimit, auth: Auth): Route[] {
  function rateLimit(): Reply {
    const s = primary.snapshot();
    const core: ApiRateLimit = { limit: s.limit, remaining: s.remaining, reset: s.reset, used: s.used };
    const idle = (limit: number): ApiRateLimit => ({ limit, remaining: limit, reset: s.reset, used: 0 });
    const body: RateLimitOverview = {
      resources: { core, search: idle(30), graphql: idle(5000), integration_manifest: idle(5000) },
      rate: core,
    };
    return { status: 200, body };
  }

  function currentUser(ctx: RequestContext): Reply {
    const login = actorOf(ctx).login;
    return { status: 200, body: { ...user(deps.shape, login), name: login, created_at: isoSeconds(0) } };
  }

  function repository(ctx: RequestContext): Reply {
    const r = repoOf(deps, ctx);
    const settings = settingsOf(deps.repositories, r.owner, r.name);
    const api = `${deps.shape.baseUrl}/repos/${r.owner}/${r.name}`;
    return {
      status: 200,
      body: {
        id: r.id,
        node_id: Buffer.from(`Repository${r.id}`).toString("base64"),
        name: r.name,
        full_name: `${r.owner}/${r.name}`,
        owner: user(deps.shape, r.owner),
        private: true,
        html_url: `${deps.shape.baseUrl}/${r.owner}/${r.name}`,
        url: api,
        issues_url: `${api}/issues{/number}`,
        labels_url: `${api}/labels{/name}`,
        has_issues: settings.hasIssues ?? true,
        archived: settings.archived ?? false,
        disabled: false,
        default_branch: "main",
        open_issues_count: r.issues.filter((i) => i.state === "open").length,
        permissions: settings.permissions ?? DEFAULT_PERMISSIONS,
        created_at: isoSeconds(r.createdAt),
        updated_at: isoSeconds(r.createdAt),
      },
    };
  }

  function installation(ctx: RequestContext): Reply {
    if (auth.installationId === null) return notFound();
    const owner = ctx.params["owner"] ?? "";
    const id = auth.installationId;
    const body: components["schemas"]["installation"] = {
      id,
      account: user(deps.shape, owner),
      repository_selection: "all",
      access_tokens_url: `${deps.shape.baseUrl}/app/installations/${id}/access_tokens`,
      repositories_url: `${deps.shape.baseUrl}/installation/repositories`,
      html_url: `${deps.shape.baseUrl}/settings/installations/${id}`,
      app_id: Number(auth.appId),
      target_id: 1,
      target_type: "Organization",
      permissions: APP_PERMISSIONS,
      events: ["issues", "issue_comment"],
      created_at: isoSeconds(0),
      updated_at: isoSeconds(0),
      single_file_name: null,
      app_slug: deps.shape.app?.slug ?? "app",
      suspended_by: null,
      suspended_at: null,
    };
    return { status: 200, body };
  }

  function accessToken(ctx: RequestContext): Reply {
    if (ctx.params["installation_id"] !== String(auth.installationId)) return notFound();
    const minted = auth.mintInstallationToken();
    const body: components["schemas"]["installation-token"] = {
      token: minted.token,
      expires_at: isoSeconds(minted.expiresAt),
      permissions: APP_PERMISSIONS,
      repository_selection: "all",
    };
    return { status: 201, body };
  }

  /** `GET /app` with the App's JWT: who the App is (`threatbridge check` names its bot). */
  function currentApp(): Reply {
    return deps.shape.app === null ? notFound() : { status: 200, body: deps.shape.app };
  }

  function listInstallations(ctx: RequestContext): Reply {
    const one = installation({ ...ctx, params: { owner: "threatbridge" } });
    return { status: 200, body: [one.body] };
  }

  return [
    { method: "GET", pattern: "/rate_limit", auth: "token", handler: rateLimit },
    { method: "GET", pattern: "/user", auth: "token", handler: currentUser },
    { method: "GET", pattern: "/repos/{owner}/{repo}", auth: "token", handler: repository },
    { method: "GET", pattern: "/repos/{owner}/{repo}/installation", auth: "app", handler: installation },
    { method: "GET", pattern: "/app", auth: "app", handler: currentApp },
    { method: "GET", pattern: "/app/installations", auth: "app", handler: listInstallations },
    {
      method: "POST",
      pattern: "/app/installations/{installation_id}/access_tokens",
      auth: "app",
      handler: accessToken,
    },
  ];
}

/** The `performed_via_github_app` object for the stand-in's app (app mode only). */
export function appIntegration(
  baseUrl: string,
  appId: string,
  botLogin: string,
): NonNullable<components["schemas"]["nullable-integration"]> {
  const slug = botLogin.replace(/\[bot\]$/, "");
  return {
    id: Number(appId) || 1,
    slug,
    node_id: Buffer.from(`App${appId}`).toString("base64"),
    client_id: `Iv1.${slug}`,
    owner: user({ baseUrl, app: null }, slug),
    name: slug,
    description: "GitHub App of the GitHub stand-in",
    external_url: baseUrl,
    html_url: `${baseUrl}/apps/${slug}`,
    created_at: isoSeconds(0),
    updated_at: isoSeconds(0),
    permissions: APP_PERMISSIONS,
    events: ["issues", "issue_comment"],
  };
}
