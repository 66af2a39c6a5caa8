/** The few HTTP calls the harness makes, sent to the runtime's app as Requests (no socket needed). */
import type { App } from "../../src/lib.ts";

export class ServiceCallFailed extends Error {}

export class ServiceClient {
  constructor(private readonly app: App) {}

  async call<T>(
    method: string,
    path: string,
    token: string,
    body?: unknown,
  ): Promise<{ status: number; body: T }> {
    const res = await this.app.handle(
      new Request(`http://localhost${path}`, {
        method,
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
        body: body === undefined ? undefined : JSON.stringify(body),
      }),
    );
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = JSON.parse(text);
    } catch {
      // not JSON: kept as text for the error message
    }
    return { status: res.status, body: parsed as T };
  }

  /** The call's body when its status is one of `ok`, else a ServiceCallFailed naming both. */
  async expect<T>(ok: number[], method: string, path: string, token: string, body?: unknown): Promise<T> {
    const answer = await this.call<T>(method, path, token, body);
    if (!ok.includes(answer.status)) {
      const detail = typeof answer.body === "string" ? answer.body : JSON.stringify(answer.body);
      throw new ServiceCallFailed(`${method} ${path}: ${answer.status} ${detail.slice(0, 300)}`);
    }
    return answer.body;
  }
}
