import { expect } from "bun:test";

export interface ProblemBody {
  type: string;
  title: string;
  status: number;
  detail: string;
  code: string;
  request_id: string;
  errors?: Array<{ path: string; message: string }>;
}

/** Checks that a response is an RFC 9457 problem document with every field of CONTRACT §1. */
export async function expectProblem(res: Response, status: number, code: string): Promise<ProblemBody> {
  const text = await res.text();
  let body: ProblemBody;
  try {
    body = JSON.parse(text);
  } catch {
    throw new Error(`expected a problem document, got ${res.status}: ${text.slice(0, 200)}`);
  }
  expect({ status: res.status, code: body.code }).toEqual({ status, code });
  expect(res.headers.get("content-type")).toStartWith("application/problem+json");
  expect(body.type).toBe(`/problems/${code}`);
  expect(body.status).toBe(status);
  expect(typeof body.title).toBe("string");
  expect(body.title.length).toBeGreaterThan(0);
  expect(typeof body.detail).toBe("string");
  expect(body.detail.length).toBeGreaterThan(0);
  expect(typeof body.request_id).toBe("string");
  expect(body.request_id).toBe(res.headers.get("x-request-id")!);
  // No stack traces and no secrets in any error body.
  expect(text).not.toMatch(/\n\s+at |\.ts:\d+/);
  return body;
}
