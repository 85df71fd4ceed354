import { StandInError } from "./errors.js";
import type { Store } from "./store.js";
import type { PersonActions } from "./types.js";
import type { WebhookSender } from "./webhooks.js";

/** A person's changes in GitHub's web UI: free, recorded with the person as actor; a close or reopen also a webhook. */
export function createPersonActions(
  store: Store,
  webhooks?: WebhookSender,
): Omit<PersonActions, "setIssueTypes"> {
  const target = (repo: string, number: number) => {
    const r = store.repoByFullName(repo);
    return { r, issue: store.mustFindIssue(r, number) };
  };
  const as = (login: string) => ({ login, viaApp: false });
  return {
    close(repo, number, opts) {
      const { r, issue } = target(repo, number);
      store.updateIssue(r, issue, { state: "closed", stateReason: opts.reason }, as(opts.login));
      webhooks?.issueChanged(r, issue, "closed", opts.login);
    },
    reopen(repo, number, login) {
      const { r, issue } = target(repo, number);
      store.updateIssue(r, issue, { state: "open" }, as(login));
      webhooks?.issueChanged(r, issue, "reopened", login);
    },
    comment(repo, number, body, login) {
      const { r, issue } = target(repo, number);
      store.addComment(r, issue, body, as(login));
    },
    assign(repo, number, assignees, login) {
      const { r, issue } = target(repo, number);
      store.updateIssue(r, issue, { assignees: [...issue.assignees, ...assignees] }, as(login));
    },
    editComment(repo, commentId, body) {
      const r = store.repoByFullName(repo);
      const comment = [...r.comments.values()].flat().find((c) => c.id === commentId);
      if (!comment) throw new StandInError("no_such_issue", `no comment ${commentId} in ${repo}`);
      // GitHub moves `updated_at` (not `created_at`): a `since` listing shows the comment again.
      comment.body = body;
      comment.updatedAt = store.now();
    },
    relabel(repo, number, labels, login) {
      const { r, issue } = target(repo, number);
      store.updateIssue(r, issue, { labels }, as(login));
    },
    reassign(repo, number, assignees, login) {
      const { r, issue } = target(repo, number);
      store.updateIssue(r, issue, { assignees }, as(login));
    },
    editTitle(repo, number, title, login) {
      const { r, issue } = target(repo, number);
      store.updateIssue(r, issue, { title }, as(login));
    },
    lock(repo, number) {
      target(repo, number).issue.locked = true;
    },
    archive(repo) {
      store.repoByFullName(repo).archived = true;
    },
    unarchive(repo) {
      store.repoByFullName(repo).archived = false;
    },
    deleteIssue(repo, number) {
      target(repo, number).issue.deleted = true;
    },
    transfer(repo, number, toRepo, login) {
      const { r, issue } = target(repo, number);
      return store.transferIssue(r, issue, store.repoByFullName(toRepo), as(login)).number;
    },
    openPullRequest(repo, title, labels, login) {
      const r = store.repoByFullName(repo);
      return store.createIssue(
        r,
        { title, body: null, labels, assignees: [], isPullRequest: true },
        as(login),
      ).number;
    },
  };
}
