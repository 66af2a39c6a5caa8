/**
 * A webhook delivery's body does not outlive the erasure of its entry (src/cluster/intake.ts,
 * secure-delete.ts), with real processes: a delivery carrying a distinctive text is sent through the
 * node that does not own its tenant, queued in `MR_INTAKE`, applied and removed by the owner; once
 * its entry is erased the text is in no file of the nats-server's store directory, although another
 * message stays queued in the same block file (a removed message's bytes stay in a block until every
 * message of it is gone, unless overwritten). A retry of the delivery within the duplicate window
 * is still recognised by its `Nats-Msg-Id` after the overwrite, so it does not bring the text back.
 */
import { describe, expect, test } from "bun:test";
import { randomBytes } from "node:crypto";
import { jetstream, jetstreamManager } from "@nats-io/jetstream";
import { INTAKE_STREAM } from "../../src/cluster/intake.ts";
import { STANDARD_SECRET, standardSender } from "../fakes/senders/standard.ts";
import { createPlacedTenant, useTestCluster } from "../helpers/cluster-processes.ts";
import { pollUntil } from "../helpers/poll.ts";
import { adminTokenFor, httpCall } from "../helpers/server-process.ts";
import { filesHolding } from "../helpers/store-files.ts";

const SECRET = "cluster-intake-erasure-secret-of-32-bytes!!";
/** On a subject of the stream no partition consumes: stands for a delivery still queued (its partition between owners). */
const HELD_SUBJECT = "mr.intake.held";

describe("cluster: a webhook delivery's body leaves NATS with its erased entry (2 nodes)", () => {
  const suite = useTestCluster(["w1", "w2"], SECRET);

  test("applied through a non-owner, then erased: the text is in no store file, and a retry stays a duplicate", async () => {
    const { cluster, nc } = suite;
    const admin = await adminTokenFor(SECRET);
    const tenant = await createPlacedTenant(cluster, admin, "Intake Erasure Co");
    await cluster.setSecrets(tenant.id, { STANDARD_WEBHOOK_SECRET: STANDARD_SECRET }, admin);
    const jsm = await jetstreamManager(nc);
    const queuedMessages = async () => (await jsm.streams.info(INTAKE_STREAM)).state.messages;
    const heldMarker = `HeldDelivery${randomBytes(6).toString("hex")}`;
    await jetstream(nc).publish(HELD_SUBJECT, `a delivery still queued: ${heldMarker}`);

    const needle = `Vexquorin${randomBytes(6).toString("hex")}`;
    const body = JSON.stringify({
      type: "user.created",
      timestamp: "2026-11-21T09:59:00.000Z",
      data: { id: "u-erased", description: `${needle} confided by webhook` },
    });
    const deliver = async (base: string) => {
      const url = `${base}/webhooks/standard/${tenant.id}`;
      const signed = await standardSender.sign(body, { now: Date.now(), url });
      return fetch(url, { method: "POST", headers: signed.headers, body: signed.body });
    };
    const first = await deliver(tenant.other.server.base);
    expect(first.status).toBe(200);
    expect(((await first.json()) as { accepted: number }).accepted).toBe(1);
    // Removed once applied (after the answer): only the held message stays, in the same block file.
    await pollUntil(queuedMessages, (n) => n === 1, { timeoutMs: 10_000, intervalMs: 20 });

    const erased = await httpCall(tenant.other.server.base, "POST", `/admin/tenants/${tenant.id}/erase`, {
      token: admin,
      body: { subject: needle },
    });
    expect(erased.status).toBe(200);
    expect(erased.body.erased).toHaveLength(1);
    expect(filesHolding(cluster.nats.storeDir, needle)).toEqual([]);
    expect(filesHolding(cluster.nats.storeDir, heldMarker)).toEqual([
      expect.stringMatching(new RegExp(`/streams/${INTAKE_STREAM}/msgs/\\d+\\.blk$`)),
    ]);

    // The platform's retry (same webhook-id, new signature) through the owner: JetStream's duplicate
    // (202 at once, nothing queued), not a new message the owner would answer.
    const retry = await deliver(tenant.owner.server.base);
    expect(retry.status).toBe(202);
    expect(await queuedMessages()).toBe(1);
    expect(filesHolding(cluster.nats.storeDir, needle)).toEqual([]);
    const facts = await httpCall(tenant.owner.server.base, "GET", "/memory/facts", { token: tenant.token });
    expect(facts.body.items).toEqual([]);
  }, 60_000);
});
