/**
 * `analytics` (Segment's Webhooks destination): with a shared secret set, Segment signs each request
 * with `X-Signature: <hex HMAC-SHA1 of the body>`. One Segment spec message per request; its
 * `messageId` dedupes. identify and group say who a user is and where they belong; track calls are
 * facts, except "Order Completed" (Segment's e-commerce spec), an outcome with the order's money.
 */
import { anyOf, defineSource, type Event, textAt } from "./kit/define-source.ts";
import { amountOf, clip, currencyOf, nameAndEmail, text } from "./kit/draft.ts";
import { isRecord } from "./kit/request.ts";
import { hmacScheme, payloads, signatures } from "./kit/signature.ts";

const ORDER_COMPLETED = "Order Completed";

/** The table row: spec calls by type, track calls by event name; page, screen and alias are not covered. */
function rowOf(eventType: string): string | undefined {
  if (eventType === `track:${ORDER_COMPLETED}`) return "order_completed";
  if (eventType.startsWith("track:")) return "track";
  return eventType === "identify" || eventType === "group" ? eventType : undefined;
}

/** Every Segment call is about a user, known or anonymous: every mapping requires one of the two. */
const WHO = anyOf("userId", "anonymousId");
const who = (ev: Event) => (textAt(ev, "userId") ?? textAt(ev, "anonymousId"))!;
/** `User {id}` (or the anonymous visitor), with the name and e-mail the call's context carries. */
const whoLabel = (ev: Event) => {
  const id = textAt(ev, "userId")
    ? `User ${textAt(ev, "userId")}`
    : `Anonymous visitor ${textAt(ev, "anonymousId")!}`;
  const known = nameAndEmail(textAt(ev, "context.traits.name"), textAt(ev, "context.traits.email"));
  return known ? `${id} (${known})` : id;
};
/** The traits an identify (the user's) or group call (the group's) carries. */
const traits = (ev: Event): Record<string, unknown> => (isRecord(ev.traits) ? ev.traits : {});
/** The spec's `company` trait is an object `{name, id, industry, …}`; senders also give a plain name. */
const companyOf = (ev: Event) => textAt(ev, "traits.company.name") ?? textAt(ev, "traits.company");
const person = (ev: Event) =>
  nameAndEmail(textAt(ev, "traits.name") ?? joinNames(ev), textAt(ev, "traits.email"));
const joinNames = (ev: Event) =>
  [textAt(ev, "traits.firstName") ?? textAt(ev, "traits.first_name"), textAt(ev, "traits.lastName")]
    .filter(Boolean)
    .join(" ") || undefined;
/** What an identify relates the user to: their company, else who they are (a name or an email). */
const IDENTITY = anyOf(
  "traits.company.name",
  "traits.company",
  "traits.name",
  "traits.firstName",
  "traits.first_name",
  "traits.lastName",
  "traits.email",
);
const groupName = (ev: Event) => (textAt(ev, "traits.name") ?? textAt(ev, "groupId"))!;
const props = (ev: Event): Record<string, unknown> => (isRecord(ev.properties) ? ev.properties : {});
const context = (ev: Event) => ({
  page: textAt(ev, "context.page.url"),
  library: textAt(ev, "context.library.name"),
});

/** An order's money: Segment's `revenue` (before shipping and tax), else the `total` paid. */
const orderAmount = (ev: Event) => amountOf(props(ev).revenue) ?? amountOf(props(ev).total);
/** Segment's spec: revenue without a currency is in US dollars. */
const orderCurrency = (ev: Event) => currencyOf(props(ev).currency) ?? "USD";

export const analyticsSource = defineSource({
  id: "analytics",
  secrets: ["ANALYTICS_SHARED_SECRET"],
  verify: hmacScheme({
    secret: "ANALYTICS_SHARED_SECRET",
    hash: "sha1",
    encoding: "hex",
    signatures: signatures.header("x-signature"),
    payload: payloads.body,
  }),
  eventId: (ev) => ev.messageId,
  eventType: (ev) => {
    const type = textAt(ev, "type");
    return type === "track" ? `track:${textAt(ev, "event") ?? ""}` : type;
  },
  row: rowOf,
  mappings: {
    identify: {
      category: "relationship",
      required: [WHO, IDENTITY],
      content: (ev) => {
        const company = companyOf(ev);
        const said = [person(ev), company ? `company ${company}` : undefined].filter(Boolean).join(", ");
        return `${whoLabel(ev)} identified${said ? `: ${said}` : ""}.`;
      },
      // The company a user works at is the relationship worth keeping; without one, who they are.
      fields: (ev) => ({
        subject: clip(who(ev), 1024),
        predicate: companyOf(ev) ? "works at" : "is identified as",
        object: clip((companyOf(ev) ?? person(ev))!, 1024),
      }),
      tags: ["identify"],
      data: (ev) => ({
        user_id: textAt(ev, "userId"),
        anonymous_id: textAt(ev, "anonymousId"),
        traits: traits(ev),
      }),
      validFrom: (ev) => ev.timestamp,
    },
    group: {
      category: "relationship",
      required: [WHO, "groupId"],
      content: (ev) => {
        const industry = textAt(ev, "traits.industry");
        const plan = textAt(ev, "traits.plan");
        const about = [industry, plan ? `plan ${plan}` : undefined].filter(Boolean).join(", ");
        return `${whoLabel(ev)} belongs to group ${groupName(ev)}${textAt(ev, "traits.name") ? ` (${textAt(ev, "groupId")!})` : ""}${about ? `: ${about}` : ""}.`;
      },
      fields: (ev) => ({
        subject: clip(who(ev), 1024),
        predicate: "belongs to",
        object: clip(groupName(ev), 1024),
      }),
      tags: ["group"],
      data: (ev) => ({ user_id: who(ev), group_id: textAt(ev, "groupId"), traits: traits(ev) }),
      validFrom: (ev) => ev.timestamp,
    },
    order_completed: {
      category: "outcome",
      required: [WHO],
      content: (ev) => {
        const amount = orderAmount(ev);
        const total = amountOf(props(ev).total);
        const order = textAt(ev, "properties.order_id");
        const money = amount === undefined ? "" : ` for ${amount} ${orderCurrency(ev)}`;
        const paid = total !== undefined && total !== amount ? ` (total paid ${total})` : "";
        return `${whoLabel(ev)} completed ${order ? `order ${order}` : "an order"}${money}${paid}.`;
      },
      fields: (ev) => ({
        result: "success",
        amount: orderAmount(ev),
        currency: orderAmount(ev) === undefined ? undefined : orderCurrency(ev),
      }),
      tags: ["track", "order_completed"],
      data: (ev) => ({
        user_id: who(ev),
        order_id: textAt(ev, "properties.order_id"),
        checkout_id: textAt(ev, "properties.checkout_id"),
        revenue: amountOf(props(ev).revenue),
        total: amountOf(props(ev).total),
        coupon: textAt(ev, "properties.coupon"),
        products: Array.isArray(props(ev).products) ? (props(ev).products as unknown[]).length : undefined,
      }),
      // Segment has no decisions to resolve: the order (else the user) names what it is about,
      // so the entry is a fact tagged `outcome` that keeps the order's money.
      object: (ev) => {
        const order = textAt(ev, "properties.order_id");
        return order ? `order:${order}` : `user:${who(ev)}`;
      },
      validFrom: (ev) => ev.timestamp,
    },
    track: {
      category: "fact",
      required: [WHO, "event"],
      content: (ev) => {
        const shown = Object.entries(props(ev))
          .filter(([, v]) => text(v) !== undefined)
          .slice(0, 8)
          .map(([k, v]) => `${k}=${text(v)}`);
        return `${whoLabel(ev)} did "${textAt(ev, "event")!}"${shown.length ? ` (${shown.join(", ")})` : ""}.`;
      },
      tags: (ev) => ["track", textAt(ev, "event")],
      data: (ev) => ({ user_id: who(ev), event: textAt(ev, "event"), properties: props(ev), ...context(ev) }),
      validFrom: (ev) => ev.timestamp,
    },
  },
});
