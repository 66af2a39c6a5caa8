/**
 * A server as src/index.ts starts it, on the process environment (a cluster node too, with
 * MEMORY_RUNTIME_CLUSTER_URL), but with the sentence model of the `local`/`tiered` embedders
 * replaced by the fake embeddings service at TEST_MODEL_URL (service-model.ts): a child process
 * whose model the test holds back, serves or fails, so a kill -9 can land in the middle of an
 * upgrade batch. Prints the listening line server-process.ts waits for; stops on SIGTERM.
 */
import { clusterConfigOf } from "../../src/cluster/config.ts";
import { createClusterRuntime, serveClusterNode } from "../../src/cluster/serve.ts";
import { LocalModel } from "../../src/embedding/local-model.ts";
import { createRuntime } from "../../src/lib.ts";
import { serviceModel } from "./service-model.ts";

const url = process.env.TEST_MODEL_URL;
if (!url) throw new Error("TEST_MODEL_URL is not set");
const options = { env: process.env, localModel: new LocalModel({ load: async () => serviceModel(url) }) };
const cluster = clusterConfigOf(process.env);
const clustered = cluster ? createClusterRuntime(options) : undefined;
const runtime = clustered?.runtime ?? createRuntime(options);
const served = cluster && clustered ? await serveClusterNode(clustered, cluster) : undefined;
const listening = served?.url ?? runtime.listen().url;
console.log(
  `memory-runtime (fake model) listening on ${listening}${cluster ? ` (cluster node ${cluster.nodeId})` : ""}`,
);
process.on("SIGTERM", () => void (served ? served.stop() : runtime.stop()).then(() => process.exit(0)));
