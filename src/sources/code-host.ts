/**
 * `code_host` (modelled on GitHub): `X-Hub-Signature-256: sha256=<hex HMAC-SHA256 of the raw body>`
 * keyed with the webhook secret. The event name travels in `X-GitHub-Event` and is refined by the
 * body (`pull_request.merged`, `workflow_run.failed`); `X-GitHub-Delivery`, a GUID GitHub keeps when it
 * redelivers, dedupes. `ping`, sent when a hook is created, is answered after the signature check
 * with nothing written. A merged pull request is a decision about its repository; a release
 * published there is the outcome resolving the latest one.
 */
import { at, defineSource, type Event, jsonReply, NOTHING_WRITTEN, textAt } from "./kit/define-source.ts";
import { clip, excerpt } from "./kit/draft.ts";
import { hmacScheme, payloads, signatures } from "./kit/signature.ts";

/** Conclusions of a completed run that mean it failed (a cancelled or skipped run did not). */
const FAILED: Readonly<Record<string, string>> = {
  failure: "failed",
  timed_out: "timed out",
  startup_failure: "failed to start",
};

const eventName = (headers: Headers) => headers.get("x-github-event")?.trim() || undefined;
const repo = (ev: Event) => textAt(ev, "repository.full_name");
/** The repository, where the mapping requires it. */
const theRepo = (ev: Event) => repo(ev)!;
const names = (list: unknown) =>
  Array.isArray(list)
    ? list.map((item) => textAt(item, "name") ?? textAt(item, "login")).filter(Boolean)
    : [];

/** `{event}.{action}`, with the two outcomes the table needs told apart from their siblings. */
function typeOf(name: string | undefined, ev: Event): string | undefined {
  if (!name) return undefined;
  const action = textAt(ev, "action");
  if (name === "pull_request" && action === "closed" && at(ev, "pull_request.merged") === true)
    return "pull_request.merged";
  const conclusion = textAt(ev, "workflow_run.conclusion") ?? "";
  if (name === "workflow_run" && action === "completed" && Object.hasOwn(FAILED, conclusion))
    return "workflow_run.failed";
  return action ? `${name}.${action}` : name;
}

/** An issue's object: its repository and number. */
const issueObject = (ev: Event) => `issue:${theRepo(ev)}#${textAt(ev, "issue.number")!}`;
const pr = (ev: Event, path: string) => textAt(ev, `pull_request.${path}`);
const issue = (ev: Event, path: string) => textAt(ev, `issue.${path}`);
const run = (ev: Event, path: string) => textAt(ev, `workflow_run.${path}`);
const release = (ev: Event, path: string) => textAt(ev, `release.${path}`);
/** ` by grace`, or nothing when no login is given. */
const by = (login: string | undefined) => (login ? ` by ${login}` : "");
const link = (url: string | undefined) => (url ? `: ${url}` : "");
const quoted = (title: string | undefined) => (title ? ` "${title}"` : "");

export const codeHostSource = defineSource({
  id: "code_host",
  secrets: ["CODE_HOST_WEBHOOK_SECRET"],
  verify: hmacScheme({
    secret: "CODE_HOST_WEBHOOK_SECRET",
    hash: "sha256",
    encoding: "hex",
    signatures: signatures.header("x-hub-signature-256", "sha256="),
    payload: payloads.body,
  }),
  handshake: (req) => (eventName(req.headers) === "ping" ? jsonReply(NOTHING_WRITTEN) : undefined),
  eventId: (_ev, req) => req.headers.get("x-github-delivery"),
  eventType: (ev, req) => typeOf(eventName(req.headers), ev),
  mappings: {
    "pull_request.merged": {
      category: "decision",
      required: ["pull_request.number", "pull_request.base.ref", "repository.full_name"],
      content: (ev) => {
        const author = pr(ev, "user.login");
        const merger = pr(ev, "merged_by.login") ?? textAt(ev, "sender.login");
        return `Pull request #${pr(ev, "number")!}${quoted(pr(ev, "title"))} was merged into ${pr(ev, "base.ref")!} of ${theRepo(ev)}${by(merger)}${author ? ` (opened by ${author})` : ""}${link(pr(ev, "html_url"))}`;
      },
      fields: (ev) => ({
        stage: "merged",
        chosen: clip(`#${pr(ev, "number")!}${pr(ev, "title") ? ` ${pr(ev, "title")}` : ""}`, 4096),
        rationale: excerpt(at(ev, "pull_request.body"), 4000),
      }),
      tags: (ev) => ["pull_request", "merged", repo(ev), ...names(at(ev, "pull_request.labels"))],
      data: (ev) => ({
        repository: repo(ev),
        number: at(ev, "pull_request.number"),
        title: pr(ev, "title"),
        url: pr(ev, "html_url"),
        author: pr(ev, "user.login"),
        merged_by: pr(ev, "merged_by.login"),
        base: pr(ev, "base.ref"),
        head: pr(ev, "head.ref"),
        merge_commit_sha: pr(ev, "merge_commit_sha"),
        commits: at(ev, "pull_request.commits"),
        additions: at(ev, "pull_request.additions"),
        deletions: at(ev, "pull_request.deletions"),
        changed_files: at(ev, "pull_request.changed_files"),
      }),
      object: theRepo,
      validFrom: (ev) => at(ev, "pull_request.merged_at"),
    },
    "issues.opened": {
      category: "workflow",
      required: ["issue.number", "repository.full_name"],
      content: (ev) => {
        const labels = names(at(ev, "issue.labels"));
        const body = excerpt(at(ev, "issue.body"));
        return `Issue #${issue(ev, "number")!}${quoted(issue(ev, "title"))} was opened in ${theRepo(ev)}${by(issue(ev, "user.login"))}${labels.length ? ` [${labels.join(", ")}]` : ""}${link(issue(ev, "html_url"))}${body ? `\n\n${body}` : ""}`;
      },
      tags: (ev) => ["issue", "opened", repo(ev), ...names(at(ev, "issue.labels"))],
      data: (ev) => ({
        repository: repo(ev),
        number: at(ev, "issue.number"),
        title: issue(ev, "title"),
        url: issue(ev, "html_url"),
        author: issue(ev, "user.login"),
        labels: names(at(ev, "issue.labels")),
        assignees: names(at(ev, "issue.assignees")),
        milestone: issue(ev, "milestone.title"),
      }),
      // The issue's state (open) until it is closed.
      object: issueObject,
      lifecycle: "state",
      validFrom: (ev) => at(ev, "issue.created_at"),
    },
    "issues.closed": {
      category: "outcome",
      required: ["issue.number", "repository.full_name"],
      content: (ev) =>
        `Issue #${issue(ev, "number")!}${quoted(issue(ev, "title"))} was closed in ${theRepo(ev)}${by(textAt(ev, "sender.login"))}${issue(ev, "state_reason") ? ` (${issue(ev, "state_reason")})` : ""}${link(issue(ev, "html_url"))}`,
      fields: (ev) => ({ result: issue(ev, "state_reason") === "not_planned" ? "neutral" : "success" }),
      tags: (ev) => ["issue", "closed", repo(ev)],
      data: (ev) => ({
        repository: repo(ev),
        number: at(ev, "issue.number"),
        title: issue(ev, "title"),
        state_reason: issue(ev, "state_reason"),
      }),
      object: issueObject,
      lifecycle: "close",
      validFrom: (ev) => at(ev, "issue.closed_at"),
    },
    "workflow_run.failed": {
      category: "exception",
      required: ["workflow_run.id", "workflow_run.name", "repository.full_name"],
      content: (ev) => {
        const number = run(ev, "run_number");
        const branch = run(ev, "head_branch");
        const sha = run(ev, "head_sha")?.slice(0, 7);
        const trigger = run(ev, "event");
        const commit = sha ? ` (commit ${sha}${trigger ? `, triggered by ${trigger}` : ""})` : "";
        return `Workflow "${run(ev, "name")!}" run ${number ? `#${number}` : run(ev, "id")!} ${FAILED[run(ev, "conclusion") ?? ""] ?? "failed"}${branch ? ` on branch ${branch} of` : " in"} ${theRepo(ev)}${commit}${link(run(ev, "html_url"))}`;
      },
      // A broken default branch blocks everyone; a failing feature branch mostly its author.
      fields: (ev) => ({
        severity: run(ev, "head_branch") === textAt(ev, "repository.default_branch") ? "high" : "medium",
        status: "open",
      }),
      tags: (ev) => ["workflow_run", run(ev, "conclusion"), repo(ev)],
      data: (ev) => ({
        repository: repo(ev),
        workflow: run(ev, "name"),
        run_id: at(ev, "workflow_run.id"),
        run_number: at(ev, "workflow_run.run_number"),
        run_attempt: at(ev, "workflow_run.run_attempt"),
        conclusion: run(ev, "conclusion"),
        branch: run(ev, "head_branch"),
        head_sha: run(ev, "head_sha"),
        trigger: run(ev, "event"),
        actor: run(ev, "actor.login"),
        url: run(ev, "html_url"),
      }),
      validFrom: (ev) => at(ev, "workflow_run.updated_at"),
    },
    "release.published": {
      category: "outcome",
      required: ["release.tag_name", "repository.full_name"],
      content: (ev) => {
        const tag = release(ev, "tag_name")!;
        const name = release(ev, "name");
        const notes = excerpt(at(ev, "release.body"));
        const publisher = release(ev, "author.login") ?? textAt(ev, "sender.login");
        return `Release ${tag}${name && name !== tag ? ` "${name}"` : ""} of ${theRepo(ev)} was published${by(publisher)}${at(ev, "release.prerelease") === true ? " (pre-release)" : ""}${link(release(ev, "html_url"))}${notes ? `\n\n${notes}` : ""}`;
      },
      fields: () => ({ result: "success" }),
      tags: (ev) => ["release", "published", repo(ev)],
      data: (ev) => ({
        repository: repo(ev),
        tag: release(ev, "tag_name"),
        name: release(ev, "name"),
        url: release(ev, "html_url"),
        author: release(ev, "author.login"),
        target: release(ev, "target_commitish"),
        prerelease: at(ev, "release.prerelease"),
      }),
      object: theRepo,
      validFrom: (ev) => at(ev, "release.published_at"),
    },
  },
});
