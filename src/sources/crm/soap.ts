/**
 * The CRM platform's SOAP 1.1 outbound message: parsing and the acknowledgement (SOURCES.md).
 * Hardened for hostile input: DTDs are refused outright (no entity expansion, no external
 * entities), only predefined and numeric character references are decoded, nesting is bounded,
 * and anything that is not well-formed XML is a BadRequest.
 */
import { XMLParser, XMLValidator } from "fast-xml-parser";
import { BadRequest } from "../../errors/domain-errors.ts";
import { decodeEntities } from "../kit/entities.ts";

export const SOAP_ACK =
  '<soapenv:Envelope xmlns:soapenv="http://schemas.xmlsoap.org/soap/envelope/"><soapenv:Body><notificationsResponse xmlns="http://soap.sforce.com/2005/09/outbound"><Ack>true</Ack></notificationsResponse></soapenv:Body></soapenv:Envelope>';

export const MAX_NOTIFICATIONS = 100;
const NOTIFICATION_PATH = "Envelope.Body.notifications.Notification";

/** A field value of an sObject: text, null (xsi:nil) or a nested object (a related record). */
export type CrmValue = string | null | { [field: string]: CrmValue };
export type CrmFields = { [field: string]: CrmValue };

export interface OutboundNotification {
  id: string;
  /** The sObject type from `xsi:type="sf:<Type>"`; "unknown" when absent. */
  type: string;
  fields: CrmFields;
}

export interface OutboundMessage {
  organizationId: string | undefined;
  actionId: string | undefined;
  notifications: OutboundNotification[];
}

const parser = new XMLParser({
  removeNSPrefix: true,
  ignoreAttributes: false,
  attributeNamePrefix: "@_",
  parseTagValue: false,
  parseAttributeValue: false,
  // Our own decoder: the library's would expand DTD-declared entities; ours knows none.
  processEntities: false,
  htmlEntities: false,
  tagValueProcessor: (_name, value) => decodeEntities(value),
  attributeValueProcessor: (_name, value) => decodeEntities(value),
  cdataPropName: "#cdata",
  ignoreDeclaration: true,
  ignorePiTags: true,
  maxNestedTags: 32,
  isArray: (_name, jpath) => jpath === NOTIFICATION_PATH,
});

type Node = Record<string, unknown>;

function isNode(value: unknown): value is Node {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function childKeys(node: Node): string[] {
  return Object.keys(node).filter((k) => !k.startsWith("@_") && k !== "#text" && k !== "#cdata");
}

/** An element as a field value: its text, null when xsi:nil, or its child elements. */
function elementValue(node: unknown): CrmValue {
  if (Array.isArray(node)) return elementValue(node[0]); // a repeated element: the first one counts
  if (typeof node === "string") return node;
  if (!isNode(node)) return node === undefined ? null : String(node);
  if (node["@_nil"] === "true") return null;
  const children = childKeys(node);
  if (children.length === 0) return `${textOf(node["#text"])}${textOf(node["#cdata"])}`;
  return fieldsOf(node);
}

function textOf(value: unknown): string {
  return typeof value === "string" ? value : "";
}

function fieldsOf(node: Node): CrmFields {
  const fields: CrmFields = {};
  for (const key of childKeys(node)) fields[key] = elementValue(node[key]);
  return fields;
}

/** `sf:Opportunity` → `Opportunity`. */
function typeOf(sObject: Node): string {
  const raw = sObject["@_type"];
  const type = typeof raw === "string" ? raw.slice(raw.lastIndexOf(":") + 1).trim() : "";
  return /^[A-Za-z][A-Za-z0-9_]{0,127}$/.test(type) ? type : "unknown";
}

function textField(node: Node, key: string): string | undefined {
  const value = elementValue(node[key]);
  return typeof value === "string" && value.trim() ? value.trim() : undefined;
}

function notificationOf(raw: unknown, index: number): OutboundNotification {
  if (!isNode(raw)) throw new BadRequest(`notification ${index} is empty`);
  const id = textField(raw, "Id");
  if (!id || id.length > 512) throw new BadRequest(`notification ${index} has no valid Id`);
  const sObject = isNode(raw.sObject) ? raw.sObject : undefined;
  if (!sObject) throw new BadRequest(`notification ${index} has no sObject`);
  return { id, type: typeOf(sObject), fields: fieldsOf(sObject) };
}

function parseXml(text: string): Node {
  // A DTD is never part of a SOAP message (SOAP 1.1 §3); refusing it rules out entity bombs and XXE.
  if (/<!DOCTYPE|<!ENTITY/i.test(text)) throw new BadRequest("body must not contain a DTD");
  if (XMLValidator.validate(text) !== true) throw new BadRequest("body is not well-formed XML");
  try {
    const root: unknown = parser.parse(text);
    if (isNode(root)) return root;
  } catch {
    // The library's own refusals (nesting depth, reserved names) are the sender's fault.
  }
  throw new BadRequest("body is not a parseable XML document");
}

/** Parses a SOAP outbound message; throws BadRequest for anything else. */
export function parseOutboundMessage(text: string): OutboundMessage {
  const root = parseXml(text);
  const envelope = isNode(root.Envelope) ? root.Envelope : undefined;
  const body = envelope && isNode(envelope.Body) ? envelope.Body : undefined;
  const notifications = body && isNode(body.notifications) ? body.notifications : undefined;
  if (!notifications)
    throw new BadRequest("body is not a SOAP outbound message (Envelope/Body/notifications)");
  const list = Array.isArray(notifications.Notification) ? notifications.Notification : [];
  if (list.length === 0) throw new BadRequest("outbound message has no Notification");
  if (list.length > MAX_NOTIFICATIONS)
    throw new BadRequest(`outbound message has more than ${MAX_NOTIFICATIONS} notifications`);
  return {
    organizationId: textField(notifications, "OrganizationId"),
    actionId: textField(notifications, "ActionId"),
    notifications: list.map(notificationOf),
  };
}
