import { createHmac, randomInt, randomUUID } from "node:crypto";
import type { PlatformSender, Signed } from "./sender.ts";

/**
 * GitHub's signing: `X-Hub-Signature-256: sha256=<hex HMAC-SHA256 of the body>` (and the legacy
 * `X-Hub-Signature: sha1=...` beside it), keyed with the webhook secret. The secret is the one of
 * GitHub's documented test vector.
 */
export const CODE_HOST_SECRET = "It's a Secret to Everybody";
const OLD_SECRET = "the secret before rotation";

export function hubSignature256(secret: string, body: string): string {
  return `sha256=${createHmac("sha256", secret).update(body).digest("hex")}`;
}

/** The event name and delivery GUID of each body built here; a redelivery keeps its GUID. */
const deliveries = new Map<string, { event: string; id: string }>();

/** A body as GitHub posts it for `event` (the `X-GitHub-Event` it is sent with). */
export function githubDelivery(event: string, payload: Record<string, unknown>): string {
  const body = JSON.stringify(payload);
  deliveries.set(body, { event, id: randomUUID() });
  return body;
}

/** The `X-GitHub-Delivery` GUID a body built by `githubDelivery` is sent with. */
export function deliveryIdOf(body: string): string {
  const known = deliveries.get(body);
  if (!known) throw new Error("build code_host bodies with githubDelivery()");
  return known.id;
}

/** The headers GitHub sends with a delivery, signatures aside. */
export function githubHeaders(body: string): Record<string, string> {
  const known = deliveries.get(body);
  if (!known) throw new Error("build code_host bodies with githubDelivery()");
  return {
    "content-type": "application/json",
    "user-agent": "GitHub-Hookshot/7e4a1b2",
    "x-github-event": known.event,
    "x-github-delivery": known.id,
    "x-github-hook-id": "498812345",
    "x-github-hook-installation-target-type": "repository",
    "x-github-hook-installation-target-id": "708812345",
  };
}

function signed(body: string, signature256: string): Signed {
  const legacy = `sha1=${createHmac("sha1", CODE_HOST_SECRET).update(body).digest("hex")}`;
  return {
    headers: { ...githubHeaders(body), "x-hub-signature": legacy, "x-hub-signature-256": signature256 },
    body,
  };
}

export const codeHostSender: PlatformSender = {
  source: "code_host",
  secrets: { CODE_HOST_WEBHOOK_SECRET: CODE_HOST_SECRET },
  signsBody: true,
  sign: (body) => signed(body, hubSignature256(CODE_HOST_SECRET, body)),
  signRaw: (body) => ({
    headers: {
      "content-type": "application/json",
      "x-github-event": "issues",
      "x-github-delivery": randomUUID(),
      "x-hub-signature-256": `sha256=${createHmac("sha256", CODE_HOST_SECRET).update(body).digest("hex")}`,
    },
    body,
  }),
  // GitHub sends one signature; a header sent twice arrives joined with ", ".
  signRotated: (body) =>
    signed(body, `${hubSignature256(OLD_SECRET, body)}, ${hubSignature256(CODE_HOST_SECRET, body)}`),
};

// ── real-shaped payloads ────────────────────────────────────────────────────────────────────

const user = (login: string) => ({
  login,
  id: randomInt(1_000, 9_999_999),
  node_id: `MDQ6VXNlcj${randomInt(1_000, 9_999)}`,
  type: "User",
  html_url: `https://github.com/${login}`,
});

export function repository(fullName = "acme/widgets") {
  const [owner = "acme", name = "widgets"] = fullName.split("/");
  return {
    id: randomInt(1_000_000, 999_999_999),
    node_id: `R_kgDO${randomInt(10_000, 99_999)}`,
    name,
    full_name: fullName,
    private: true,
    owner: { ...user(owner), type: "Organization" },
    html_url: `https://github.com/${fullName}`,
    default_branch: "main",
  };
}

export function pullRequestClosed(
  opts: { repo?: string; number?: number; merged?: boolean; mergedAt?: string } = {},
): string {
  const repo = opts.repo ?? "acme/widgets";
  const at = opts.mergedAt ?? "2026-11-21T09:41:07Z";
  const number = opts.number ?? randomInt(100, 9_999);
  const merged = opts.merged ?? true;
  return githubDelivery("pull_request", {
    action: "closed",
    number,
    pull_request: {
      url: `https://api.github.com/repos/${repo}/pulls/${number}`,
      id: randomInt(1_000_000, 999_999_999),
      html_url: `https://github.com/${repo}/pull/${number}`,
      number,
      state: "closed",
      title: "Retry idempotent payment captures",
      user: user("ada"),
      body: "Captures that time out are retried with the same idempotency key.",
      labels: [{ id: 1, name: "payments", color: "0e8a16" }],
      created_at: "2026-11-20T15:02:11Z",
      closed_at: at,
      merged_at: merged ? at : null,
      merge_commit_sha: "9f1c2e7d4b3a5c6e8f0a1b2c3d4e5f6a7b8c9d0e",
      head: { ref: "retry-captures", sha: "4b3a5c6e8f0a1b2c3d4e5f6a7b8c9d0e9f1c2e7d" },
      base: { ref: "main", sha: "0a1b2c3d4e5f6a7b8c9d0e9f1c2e7d4b3a5c6e8f" },
      merged,
      merged_by: merged ? user("grace") : null,
      commits: 3,
      additions: 120,
      deletions: 14,
      changed_files: 5,
    },
    repository: repository(repo),
    sender: user("grace"),
  });
}

export function issueOpened(repo = "acme/widgets", number = randomInt(100, 9_999)): string {
  return githubDelivery("issues", {
    action: "opened",
    issue: {
      url: `https://api.github.com/repos/${repo}/issues/${number}`,
      html_url: `https://github.com/${repo}/issues/${number}`,
      id: randomInt(1_000_000, 999_999_999),
      number,
      title: "Checkout fails for carts over 100 items",
      user: user("linus"),
      labels: [
        { id: 11, name: "bug", color: "d73a4a" },
        { id: 12, name: "checkout", color: "1d76db" },
      ],
      state: "open",
      assignees: [user("ada")],
      milestone: null,
      created_at: "2026-11-21T09:30:00Z",
      body: "Steps: add 101 items, press Pay. Expected a receipt, got a 500.",
    },
    repository: repository(repo),
    sender: user("linus"),
  });
}

export function workflowRunCompleted(conclusion: string, branch = "main", repo = "acme/widgets"): string {
  const id = randomInt(1_000_000_000, 9_999_999_999);
  return githubDelivery("workflow_run", {
    action: "completed",
    workflow_run: {
      id,
      name: "CI",
      head_branch: branch,
      head_sha: "d4e5f6a7b8c9d0e9f1c2e7d4b3a5c6e8f0a1b2c3",
      run_number: 482,
      run_attempt: 1,
      event: "push",
      status: "completed",
      conclusion,
      workflow_id: 161335,
      html_url: `https://github.com/${repo}/actions/runs/${id}`,
      actor: user("grace"),
      created_at: "2026-11-21T09:50:12Z",
      updated_at: "2026-11-21T09:58:40Z",
    },
    workflow: { id: 161335, name: "CI", path: ".github/workflows/ci.yml", state: "active" },
    repository: repository(repo),
    sender: user("grace"),
  });
}

export function releasePublished(repo = "acme/widgets", tag = "v2.4.0"): string {
  return githubDelivery("release", {
    action: "published",
    release: {
      url: `https://api.github.com/repos/${repo}/releases/${randomInt(1_000, 99_999)}`,
      html_url: `https://github.com/${repo}/releases/tag/${tag}`,
      id: randomInt(1_000_000, 999_999_999),
      tag_name: tag,
      target_commitish: "main",
      name: `Widgets ${tag}`,
      draft: false,
      prerelease: false,
      author: user("grace"),
      created_at: "2026-11-21T09:55:00Z",
      published_at: "2026-11-21T09:59:00Z",
      body: "Retries idempotent payment captures.",
    },
    repository: repository(repo),
    sender: user("grace"),
  });
}

/** The `ping` GitHub sends when a hook is created. */
export function ping(repo = "acme/widgets"): string {
  return githubDelivery("ping", {
    zen: "Design for failure.",
    hook_id: randomInt(100_000_000, 999_999_999),
    hook: {
      type: "Repository",
      id: 498812345,
      name: "web",
      active: true,
      events: ["issues", "pull_request", "release", "workflow_run"],
      config: {
        content_type: "json",
        insecure_ssl: "0",
        url: "https://memory.example.com/webhooks/code_host",
      },
    },
    repository: repository(repo),
    sender: user("grace"),
  });
}

export function push(repo = "acme/widgets"): string {
  return githubDelivery("push", {
    ref: "refs/heads/main",
    before: "0a1b2c3d4e5f6a7b8c9d0e9f1c2e7d4b3a5c6e8f",
    after: randomUUID().replaceAll("-", "").padEnd(40, "0"),
    repository: repository(repo),
    pusher: { name: "grace", email: "grace@example.com" },
    sender: user("grace"),
    commits: [],
  });
}
