import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { jetstream, jetstreamManager } from "@nats-io/jetstream";
import { connect, type NatsConnection } from "@nats-io/transport-node";
import { type NatsServer, startNatsServer } from "../helpers/nats-server.ts";

describe("the NATS test server", () => {
  let server: NatsServer;
  let nc: NatsConnection;
  beforeAll(async () => {
    server = await startNatsServer();
    nc = await connect({ servers: server.url });
  });
  afterAll(async () => {
    await nc.close();
    await server.stop();
  });

  test("has JetStream, and refuses an append naming a stale last subject sequence", async () => {
    const jsm = await jetstreamManager(nc);
    await jsm.streams.add({ name: "SMOKE", subjects: ["smoke.>"] });
    const js = jetstream(nc);
    const first = await js.publish("smoke.a", "one", { expect: { lastSubjectSequence: 0 } });
    expect(first.seq).toBe(1);
    await expect(js.publish("smoke.a", "two", { expect: { lastSubjectSequence: 0 } })).rejects.toThrow(
      /wrong last sequence/,
    );
  });

  test("stops cleanly on SIGINT: exit code 0", async () => {
    const other = await startNatsServer();
    await other.stop();
    expect(other.proc.exitCode).toBe(0);
  });
});
