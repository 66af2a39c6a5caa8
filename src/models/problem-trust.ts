/**
 * The 403 of a write that supersedes, corrects or retracts an entry of higher trust than its
 * writer's (docs/trust-and-provenance.md): a problem document naming the entry and both levels.
 * Any other 403 of those routes is the plain problem document, which this one extends.
 */
import { Type } from "@sinclair/typebox";
import { Sha8 } from "./common.ts";
import { sentAs } from "./media-type.ts";
import { TrustLevel } from "./origin.ts";
import { PROBLEM_JSON, Problem } from "./problem.ts";
import { named } from "./schema-name.ts";

export const TrustProblem = named(
  "TrustProblem",
  Type.Object(
    {
      ...Problem.properties,
      entry_id: Type.Optional({ ...Sha8, description: "The entry that outranks the writer" }),
      entry_trust: Type.Optional(TrustLevel),
      writer_trust: Type.Optional(TrustLevel),
    },
    { additionalProperties: false },
  ),
);

/** The 403 of the memory write routes: refused by roles, tenant or status, or by the trust rule. */
export function trustForbidden(): { 403: typeof TrustProblem } {
  return {
    403: sentAs(PROBLEM_JSON, {
      ...TrustProblem,
      description:
        "Refused by the caller's roles, tenant or status, or by the trust rule (an entry of higher trust: `entry_id`, `entry_trust`, `writer_trust`; needs memory:override); recorded as a denial",
    }),
  };
}
