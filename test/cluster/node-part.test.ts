import { describe, expect, test } from "bun:test";
import { NodePart } from "../../src/cluster/node-part.ts";
import { Unavailable } from "../../src/errors/domain-errors.ts";

describe("a cluster node's part", () => {
  test("before it started: asked for, a 503 to retry; gone without, the fallback", () => {
    const part = new NodePart<{ name: string }>("started its router");
    expect(part.isStarted).toBe(false);
    let error: unknown;
    try {
      part.get();
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(Unavailable);
    expect((error as Unavailable).message).toBe("this node has not started its router yet; retry");
    expect((error as Unavailable).headers["retry-after"]).toBe("1");
    expect(part.ifStarted((p) => p.name, "none")).toBe("none");
  });

  test("once started it is the part, and a second start is refused", () => {
    const part = new NodePart<{ name: string }>("joined the cluster");
    const router = { name: "r1" };
    expect(part.started(router)).toBe(router);
    expect(part.isStarted).toBe(true);
    expect(part.get()).toBe(router);
    expect(part.ifStarted((p) => p.name, "none")).toBe("r1");
    expect(() => part.started({ name: "r2" })).toThrow("this node has joined the cluster already");
    expect(part.get()).toBe(router);
  });
});
