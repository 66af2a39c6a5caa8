import { expect, test } from "bun:test";
import { sign, verify } from "@octokit/webhooks-methods";
import { NOTHING_WRITTEN } from "../../src/sources/kit/define-source.ts";
import {
  CODE_HOST_SECRET,
  codeHostSender,
  deliveryIdOf,
  githubDelivery,
  githubHeaders,
  hubSignature256,
  issueOpened,
  ping,
  pullRequestClosed,
  push,
  releasePublished,
  workflowRunCompleted,
} from "../fakes/senders/code-host.ts";
import { expectProblem } from "../helpers/problem.ts";
import { deadLetters, readEntry } from "../helpers/webhooks.ts";
import { describeSource } from "./conformance.ts";

/** The issue `issueOpened` opens, closed as completed. */
function issueClosed(repo: string, number: number): string {
  const opened = JSON.parse(issueOpened(repo, number));
  const issue = {
    ...opened.issue,
    state: "closed",
    state_reason: "completed",
    closed_at: "2026-11-21T11:00:00Z",
  };
  return githubDelivery("issues", { ...opened, action: "closed", issue });
}

describeSource({
  sender: codeHostSender,
  mapped: [
    {
      name: "pull request merged",
      body: () => pullRequestClosed({ number: 314 }),
      eventType: "pull_request.merged",
      category: "decision",
      content:
        'Pull request #314 "Retry idempotent payment captures" was merged into main of acme/widgets by grace (opened by ada): https://github.com/acme/widgets/pull/314',
      fields: {
        stage: "merged",
        chosen: "#314 Retry idempotent payment captures",
        status: "open",
        rationale: "Captures that time out are retried with the same idempotency key.",
        tags: ["code_host", "pull_request", "merged", "acme/widgets", "payments"],
        valid_from: "2026-11-21T09:41:07.000Z",
      },
    },
    {
      name: "issue opened",
      body: () => issueOpened("acme/widgets", 77),
      eventType: "issues.opened",
      category: "workflow",
      content:
        'Issue #77 "Checkout fails for carts over 100 items" was opened in acme/widgets by linus [bug, checkout]: https://github.com/acme/widgets/issues/77',
      fields: {
        tags: ["code_host", "issue", "opened", "acme/widgets", "bug", "checkout"],
        data: { number: 77, assignees: ["ada"], labels: ["bug", "checkout"] },
      },
    },
    {
      name: "workflow run failed on the default branch",
      body: () => workflowRunCompleted("failure"),
      eventType: "workflow_run.failed",
      category: "exception",
      content:
        'Workflow "CI" run #482 failed on branch main of acme/widgets (commit d4e5f6a, triggered by push)',
      fields: { severity: "high", status: "open", data: { conclusion: "failure", branch: "main" } },
    },
    {
      name: "release published (no merged pull request to resolve)",
      body: () => releasePublished("acme/widgets", "v2.4.0"),
      eventType: "release.published",
      category: "fact",
      content:
        'Release v2.4.0 "Widgets v2.4.0" of acme/widgets was published by grace: https://github.com/acme/widgets/releases/tag/v2.4.0',
      fields: {
        tags: ["outcome", "code_host", "release", "published", "acme/widgets"],
        data: { result: "success", tag: "v2.4.0" },
      },
    },
  ],
  lifecycles: [
    {
      name: "issue closed",
      before: [{ body: () => issueOpened("acme/widgets", 4242), category: "workflow", closed: "ended" }],
      closing: { body: () => issueClosed("acme/widgets", 4242), category: "fact" },
    },
  ],
  unmapped: () => push(),
  more: ({ tenant, deliver, post, harness, clock, url }) => {
    const entryCount = async (tenantId: string): Promise<number> =>
      (await harness().json("GET", `/tenants/${tenantId}/healthz`, { token: harness().adminToken })).body
        .vault.entries;

    test("ping is answered 200 after the signature check, with nothing written", async () => {
      const t = await tenant();
      const res = await post(
        t.tenant_id,
        await codeHostSender.sign(ping(), { now: clock.now(), url: url(t.tenant_id) }),
      );
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual(NOTHING_WRITTEN);
      expect(await entryCount(t.tenant_id)).toBe(0);
      expect(await deadLetters(harness(), t.tenant_id)).toEqual([]);
    });

    test("a ping signed with another secret → 401", async () => {
      const t = await tenant();
      const body = ping();
      const res = await post(t.tenant_id, {
        body,
        headers: { ...githubHeaders(body), "x-hub-signature-256": hubSignature256("not the secret", body) },
      });
      await expectProblem(res, 401, "unauthorized");
    });

    test("a release resolves the latest merged pull request of its repository", async () => {
      const t = await tenant();
      // The latest in event time (merges at one instant are ordered by their event ids, not by arrival).
      const at = (minute: number) => `2026-11-21T09:${minute}:07Z`;
      await deliver(t.tenant_id, pullRequestClosed({ repo: "acme/linked", number: 1, mergedAt: at(40) }));
      const decision = await deliver(
        t.tenant_id,
        pullRequestClosed({ repo: "acme/linked", number: 2, mergedAt: at(41) }),
      );
      const other = await deliver(t.tenant_id, releasePublished("acme/elsewhere", "v1.0.0"));
      const outcome = await deliver(t.tenant_id, releasePublished("acme/linked", "v3.0.0"));
      const entry = await readEntry(harness(), t.token, "outcome", outcome.entries[0]!);
      expect(entry).toMatchObject({ decision_id: decision.entries[0], result: "success" });
      expect(entry.content).toContain("Release v3.0.0");
      const resolved = await readEntry(harness(), t.token, "decision", decision.entries[0]!);
      expect(resolved.status).toBe("resolved");
      // A release of a repository with no merged pull request stays a fact.
      const fact = await readEntry(harness(), t.token, "fact", other.entries[0]!);
      expect(fact.tags).toContain("outcome");
    });

    test("a pull request closed unmerged and a successful run are ignored", async () => {
      const t = await tenant();
      for (const body of [pullRequestClosed({ merged: false }), workflowRunCompleted("success")]) {
        expect(await deliver(t.tenant_id, body)).toEqual({
          accepted: 0,
          entries: [],
          duplicates: 0,
          dead_lettered: [],
          ignored: 1,
        });
      }
      expect(await entryCount(t.tenant_id)).toBe(0);
    });

    test("a run that timed out on a feature branch is a medium exception", async () => {
      const t = await tenant();
      const summary = await deliver(t.tenant_id, workflowRunCompleted("timed_out", "retry-captures"));
      const entry = await readEntry(harness(), t.token, "exception", summary.entries[0]!);
      expect(entry.content).toContain("run #482 timed out on branch retry-captures of acme/widgets");
      expect(entry).toMatchObject({ severity: "medium", source: { event_type: "workflow_run.failed" } });
    });

    test("a release without its tag is dead-lettered as missing_field, under its delivery GUID", async () => {
      const t = await tenant();
      const payload = JSON.parse(releasePublished()) as { release: Record<string, unknown> };
      delete payload.release.tag_name;
      const body = githubDelivery("release", payload);
      const summary = await deliver(t.tenant_id, body);
      expect(summary).toMatchObject({ accepted: 0, entries: [], dead_lettered: [deliveryIdOf(body)] });
      const [dead] = await deadLetters(harness(), t.tenant_id);
      expect(dead).toMatchObject({ event_id: deliveryIdOf(body), event_type: "release.published" });
      expect(dead!.last_error).toContain("missing_field");
      expect(await entryCount(t.tenant_id)).toBe(0);
    });

    test("our signer reproduces GitHub's documented test vector", () => {
      expect(hubSignature256(CODE_HOST_SECRET, "Hello, World!")).toBe(
        "sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17",
      );
    });

    test("a delivery signed by @octokit/webhooks-methods is accepted, and its verifier accepts ours", async () => {
      const t = await tenant();
      const body = issueOpened("acme/octokit", 5);
      const signature = await sign(CODE_HOST_SECRET, body);
      expect(signature).toStartWith("sha256=");
      const res = await post(t.tenant_id, {
        body,
        headers: { ...githubHeaders(body), "x-hub-signature-256": signature },
      });
      expect(res.status).toBe(200);
      expect(((await res.json()) as { accepted: number }).accepted).toBe(1);
      const ours = codeHostSender.sign(body, { now: clock.now(), url: url(t.tenant_id) }) as {
        headers: Record<string, string>;
      };
      expect(await verify(CODE_HOST_SECRET, body, ours.headers["x-hub-signature-256"]!)).toBe(true);
      expect(await verify("another secret", body, ours.headers["x-hub-signature-256"]!)).toBe(false);
    });
  },
});
