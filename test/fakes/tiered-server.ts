/**
 * A server as src/index.ts starts it, on the process environment, but with the sentence model of
 * the `local`/`tiered` embedders replaced by the fake embeddings service at TEST_MODEL_URL
 * (service-model.ts): a child process whose model the test holds back, serves or fails, so a
 * kill -9 can land in the middle of an upgrade batch. Prints the listening line server-process.ts
 * waits for; stops on SIGTERM.
 */
import { LocalModel } from "../../src/embedding/local-model.ts";
import { createRuntime } from "../../src/lib.ts";
import { serviceModel } from "./service-model.ts";

const url = process.env.TEST_MODEL_URL;
if (!url) throw new Error("TEST_MODEL_URL is not set");
const localModel = new LocalModel({ load: async () => serviceModel(url) });
const runtime = createRuntime({ env: process.env, localModel });
console.log(`memory-runtime (fake model) listening on ${runtime.listen().url}`);
process.on("SIGTERM", () => void runtime.stop().then(() => process.exit(0)));
