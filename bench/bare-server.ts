/** The baseline: a bare Elysia app on Bun, measured in the same run as the service. */
import { Elysia } from "elysia";

const port = Number(process.env.PORT ?? 0);
const entry = { id: "00c0ffee", category: "fact", content: "A bare route returning a small JSON object" };
const app = new Elysia()
  .get("/ping", () => "ok")
  .get("/entry", () => entry)
  // A POST that reads a JSON body and answers it: the ceiling of a write route without the work.
  .post("/echo", ({ body }) => ({ ...entry, ...(body as object) }))
  .listen({ port, hostname: "127.0.0.1" });
console.log(`bare listening on ${app.server?.port}`);
