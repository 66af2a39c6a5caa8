/**
 * A seeded generator of sentences in the style of typed memory entries (facts, preferences,
 * decisions, events, tasks, messages of business platforms and of conversation), written for the
 * static table's fit corpus. Every word list and template is the project's own.
 */
import type { Rng } from "../../bench/eval/dataset/prng.ts";

const PEOPLE = [
  "Ana",
  "Ben",
  "Chen",
  "Dara",
  "Elif",
  "Farid",
  "Grace",
  "Hiro",
  "Ines",
  "Jonas",
  "Kemal",
  "Lena",
  "Maya",
  "Noah",
  "Olga",
  "Priya",
  "Quinn",
  "Rosa",
  "Sam",
  "Tariq",
  "Uma",
  "Viktor",
  "Wen",
  "Yara",
  "Zoe",
];
const COMPANIES = [
  "Acme",
  "Northwind",
  "Globex",
  "Initech",
  "Umbrella Labs",
  "Blue Harbor",
  "Kestrel Foods",
  "Vantage Health",
  "Orbit Logistics",
  "Maple Bank",
];
const PRODUCTS = [
  "the mobile app",
  "the billing portal",
  "the starter plan",
  "the enterprise plan",
  "the API",
  "the dashboard",
  "the new laptop",
  "the coffee machine",
  "the analytics add-on",
  "the support package",
];
const DAYS = [
  "Monday",
  "Tuesday",
  "Wednesday",
  "Thursday",
  "Friday",
  "next week",
  "tomorrow",
  "the end of the month",
  "March 3",
  "the first of June",
  "last Friday",
  "yesterday",
];
const PLACES = [
  "Berlin",
  "Lisbon",
  "the Chicago office",
  "the warehouse",
  "a cafe near the station",
  "the client's site",
  "Tokyo",
  "home",
  "the gym",
  "the hospital",
  "the lake house",
  "the airport",
];
const TOPICS = [
  "the renewal",
  "the refund",
  "the onboarding",
  "the price increase",
  "the security review",
  "the migration",
  "the quarterly report",
  "the hiring plan",
  "the launch",
  "the delayed shipment",
  "the contract terms",
  "the support ticket",
];
const FEELINGS = [
  "happy",
  "frustrated",
  "worried",
  "excited",
  "relieved",
  "annoyed",
  "confused",
  "grateful",
  "tired",
  "nervous",
];
const HOBBIES = [
  "painting",
  "running",
  "hiking",
  "playing guitar",
  "baking bread",
  "photography",
  "gardening",
  "chess",
  "swimming",
  "learning Spanish",
  "cycling",
  "reading novels",
];
const FOODS = [
  "sushi",
  "pizza",
  "vegetarian food",
  "spicy curry",
  "pasta",
  "tacos",
  "salad",
  "coffee",
  "green tea",
  "chocolate",
];
const CHANNELS = ["email", "phone calls", "chat", "text messages", "video calls", "in-person meetings"];
const FAMILY = [
  "sister",
  "brother",
  "mother",
  "father",
  "daughter",
  "son",
  "partner",
  "grandmother",
  "cousin",
  "best friend",
];
const ACTIONS = [
  "send the signed contract",
  "update the invoice address",
  "cancel the order",
  "book a demo",
  "reset the password",
  "approve the budget",
  "review the proposal",
  "ship the replacement",
  "schedule the kickoff",
  "renew the subscription",
  "close the ticket",
  "share the slides",
];
const REASONS = [
  "the price was lower",
  "support answered faster",
  "it integrates with our CRM",
  "the team already knows it",
  "the old vendor kept missing deadlines",
  "legal approved their terms",
  "it was the only option in stock",
];
const STATUSES = [
  "was paid",
  "is overdue",
  "was disputed",
  "was refunded",
  "is still open",
  "was escalated",
  "was resolved",
  "was sent twice",
];

type Template = (r: Rng) => string;

const TEMPLATES: Template[] = [
  (r) => `${r.pick(PEOPLE)} from ${r.pick(COMPANIES)} asked us to ${r.pick(ACTIONS)} before ${r.pick(DAYS)}.`,
  (r) =>
    `${r.pick(PEOPLE)} prefers ${r.pick(CHANNELS)} over ${r.pick(CHANNELS)} for anything about ${r.pick(TOPICS)}.`,
  (r) => `Decision: we chose ${r.pick(COMPANIES)} for ${r.pick(TOPICS)} because ${r.pick(REASONS)}.`,
  (r) => `Invoice ${r.int(1000, 9999)} for ${r.int(2, 90) * 50} euros ${r.pick(STATUSES)}.`,
  (r) => `${r.pick(PEOPLE)} said the problem with ${r.pick(PRODUCTS)} started ${r.pick(DAYS)}.`,
  (r) =>
    `Meeting with ${r.pick(PEOPLE)} about ${r.pick(TOPICS)} moved to ${r.pick(DAYS)} at ${r.int(8, 17)}:00.`,
  (r) =>
    `${r.pick(PEOPLE)} is ${r.pick(FEELINGS)} about ${r.pick(TOPICS)} and wants an update ${r.pick(DAYS)}.`,
  (r) => `Task: ${r.pick(PEOPLE)} will ${r.pick(ACTIONS)} by ${r.pick(DAYS)}.`,
  (r) =>
    `${r.pick(PEOPLE)} works at ${r.pick(COMPANIES)} as a ${r.pick(["designer", "nurse", "teacher", "sales manager", "developer", "accountant", "lawyer", "chef"])}.`,
  (r) => `${r.pick(PEOPLE)} moved to ${r.pick(PLACES)} with their ${r.pick(FAMILY)} ${r.pick(DAYS)}.`,
  (r) =>
    `${r.pick(PEOPLE)} loves ${r.pick(HOBBIES)} and goes every ${r.pick(["weekend", "morning", "evening", "Sunday"])}.`,
  (r) => `${r.pick(PEOPLE)} does not eat ${r.pick(FOODS)} but really likes ${r.pick(FOODS)}.`,
  (r) => `${r.pick(PEOPLE)}: I finally started ${r.pick(HOBBIES)} last month, it helps me relax.`,
  (r) =>
    `${r.pick(PEOPLE)}: my ${r.pick(FAMILY)} visited us in ${r.pick(PLACES)} and we had ${r.pick(FOODS)}.`,
  (r) => `${r.pick(PEOPLE)}: honestly I feel ${r.pick(FEELINGS)} since ${r.pick(TOPICS)} got postponed.`,
  (r) =>
    `Ticket ${r.int(100, 999)}: ${r.pick(PRODUCTS)} crashes when ${r.pick(PEOPLE)} opens the settings page.`,
  (r) => `${r.pick(COMPANIES)} upgraded to ${r.pick(PRODUCTS)} and ${r.pick(PEOPLE)} is the new contact.`,
  (r) =>
    `Call notes: ${r.pick(PEOPLE)} complained about ${r.pick(TOPICS)}; we promised to ${r.pick(ACTIONS)}.`,
  (r) => `${r.pick(PEOPLE)} will be out of office until ${r.pick(DAYS)}; ${r.pick(PEOPLE)} covers for them.`,
  (r) =>
    `The ${r.pick(["order", "delivery", "payment", "shipment"])} for ${r.pick(COMPANIES)} ${r.pick(STATUSES)} on ${r.pick(DAYS)}.`,
  (r) =>
    `${r.pick(PEOPLE)} was born in ${r.pick(PLACES)} and speaks ${r.pick(["French", "German", "Japanese", "Portuguese", "Arabic", "Hindi"])}.`,
  (r) =>
    `${r.pick(PEOPLE)} adopted a ${r.pick(["puppy", "cat", "rabbit", "parrot"])} named ${r.pick(PEOPLE)}.`,
  (r) =>
    `Reminder: ${r.pick(PEOPLE)}'s ${r.pick(["birthday", "anniversary", "graduation", "surgery", "interview"])} is ${r.pick(DAYS)}.`,
  (r) =>
    `${r.pick(PEOPLE)} asked whether ${r.pick(PRODUCTS)} can be paid by ${r.pick(["card", "bank transfer", "invoice", "PayPal"])}.`,
];

/** `count` sentences, deduplicated, drawn from the templates with `rng`. */
export function memorySentences(rng: Rng, count: number): string[] {
  const out = new Set<string>();
  // The space of templates is far larger than any count asked for; the cap only guards a loop.
  for (let tries = 0; out.size < count && tries < count * 20; tries++) out.add(rng.pick(TEMPLATES)(rng));
  return [...out];
}
