/**
 * The orchestrator's probes (docs/operations.md, "Health for orchestrators"): `GET /livez` and
 * `GET /readyz`, both without a token.
 */
import { type Static, Type } from "@sinclair/typebox";
import { StrictObject } from "./common.ts";
import { sentAs } from "./media-type.ts";
import { PROBLEM_JSON, Problem } from "./problem.ts";
import { named } from "./schema-name.ts";

/** `GET /livez`: the process answers. */
export const Liveness = named("Liveness", StrictObject({ status: Type.Literal("ok") }));

/** One condition of readiness: whether it holds and, when it does not, why. */
export const ReadinessCheck = named(
  "ReadinessCheck",
  StrictObject({
    ok: Type.Boolean(),
    detail: Type.Optional(Type.String({ description: "Why the check fails (absent when it holds)" })),
  }),
);
export type ReadinessCheck = Static<typeof ReadinessCheck>;

/** Every check, so a failed probe says which one failed. */
export const ReadinessChecks = StrictObject({
  accepting: { ...ReadinessCheck, description: "Fails from the moment the server starts to stop (SIGTERM)" },
  system_store: { ...ReadinessCheck, description: "The system store (tenants, roles, audit) is open" },
  cluster: Type.Optional({
    ...ReadinessCheck,
    description:
      "Cluster mode only: joined, the system state caught up, and every partition this node should own served here",
  }),
});
export type ReadinessChecks = Static<typeof ReadinessChecks>;

/** `GET /readyz` 200: every check holds. */
export const Readiness = named(
  "Readiness",
  StrictObject({ status: Type.Literal("ready"), checks: ReadinessChecks }),
);

/** `GET /readyz` 503: a problem document (`not_ready`) with every check as an extension member. */
export const NotReadyProblem = sentAs(
  PROBLEM_JSON,
  named(
    "NotReady",
    Type.Object(
      { ...Problem.properties, checks: ReadinessChecks },
      {
        additionalProperties: false,
        description: "Not ready: `detail` and `checks` say which check failed (stopping, store, cluster)",
      },
    ),
  ),
);
