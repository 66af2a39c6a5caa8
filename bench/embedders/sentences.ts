/**
 * The latency corpus: 200 distinct sentences of 8–16 words, like short notes, made from fixed
 * parts so the run is the same every time (no sentence repeats, so no cache answers).
 */
const SUBJECTS = [
  "The sales team",
  "Our largest customer",
  "The billing service",
  "The new intern",
  "The support desk",
  "The marketing lead",
  "The mobile app",
  "The warehouse in Lyon",
  "The finance department",
  "The on-call engineer",
];

const PREDICATES = [
  "asked for a revised quote before the end of the month",
  "reported slow responses after yesterday's release",
  "moved the weekly sync to Thursday afternoon",
  "needs access to the shared analytics dashboard",
  "prefers to be contacted by email rather than phone",
  "closed three escalated tickets this morning",
  "will present the quarterly numbers at the offsite",
  "flagged a duplicate invoice for the Globex account",
  "is waiting for approval of the travel budget",
  "switched the nightly backup to a different region",
  "signed the renewal after a long negotiation",
  "wants a summary of open issues every Friday",
  "lost the badge and needs a replacement",
  "upgraded the database to the latest version",
  "is on leave until the second week of August",
  "proposed a new onboarding checklist for hires",
  "found a bug in the password reset flow",
  "scheduled a security review with the auditors",
  "ordered new laptops for the design group",
  "asked whether the refund was processed",
];

export const SENTENCES: string[] = SUBJECTS.flatMap((subject) =>
  PREDICATES.map((predicate) => `${subject} ${predicate}.`),
);
