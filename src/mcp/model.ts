import { type Static, Type } from "@sinclair/typebox";
import { Chars } from "../models/chars.ts";
import { StrictObject } from "../models/common.ts";
import { named } from "../models/schema-name.ts";

/**
 * The JSON-RPC 2.0 message of the Model Context Protocol's streamable HTTP transport: one per POST
 * (the protocol dropped batches in 2025-06-18), a request, a notification, a result or an error,
 * each with exactly its members, as the MCP SDK parses it (its JSONRPCMessageSchema; a message it
 * cannot parse would be its 400). Our check refuses what is not one first, as a 422; the SDK checks
 * the method's own params.
 */
const SafeInteger = Type.Integer({ minimum: Number.MIN_SAFE_INTEGER, maximum: Number.MAX_SAFE_INTEGER });
const JsonRpcId = Type.Union([Type.String({ maxLength: 256 }), SafeInteger], {
  description: "Echoed in the reply",
});
const Method = Chars(1, 256, { description: "e.g. initialize, tools/list, tools/call" });
const Version = Type.Literal("2.0");

/** `_meta` of params and results: a progress token and a related task, each optional. */
const Meta = Type.Object(
  {
    progressToken: Type.Optional(Type.Union([Type.String(), SafeInteger])),
    "io.modelcontextprotocol/related-task": Type.Optional(
      Type.Object({ taskId: Type.String() }, { additionalProperties: true }),
    ),
  },
  { additionalProperties: true },
);
const Params = Type.Object({ _meta: Type.Optional(Meta) }, { additionalProperties: true });

export const JsonRpcMessage = named(
  "JsonRpcMessage",
  Type.Union(
    [
      StrictObject(
        { jsonrpc: Version, id: JsonRpcId, method: Method, params: Type.Optional(Params) },
        { title: "Request" },
      ),
      StrictObject(
        { jsonrpc: Version, method: Method, params: Type.Optional(Params) },
        { title: "Notification" },
      ),
      StrictObject({ jsonrpc: Version, id: JsonRpcId, result: Params }, { title: "Result" }),
      StrictObject(
        {
          jsonrpc: Version,
          id: Type.Optional(JsonRpcId),
          error: Type.Object(
            { code: SafeInteger, message: Type.String(), data: Type.Optional(Type.Unknown()) },
            { additionalProperties: true },
          ),
        },
        { title: "Error" },
      ),
    ],
    { description: "A JSON-RPC 2.0 request, notification, result or error (one message, no batch)" },
  ),
);
export type JsonRpcMessage = Static<typeof JsonRpcMessage>;

/** The reply to a request: a result, or a JSON-RPC error (an unknown tool or method, bad params). */
export const JsonRpcReply = named(
  "JsonRpcReply",
  Type.Object(
    {
      jsonrpc: Type.Literal("2.0"),
      id: Type.Union([Type.String(), Type.Number(), Type.Null()]),
      result: Type.Optional(Type.Object({}, { additionalProperties: true })),
      error: Type.Optional(
        Type.Object(
          { code: Type.Integer(), message: Type.String(), data: Type.Optional(Type.Unknown()) },
          { additionalProperties: false },
        ),
      ),
    },
    {
      additionalProperties: false,
      description:
        "The JSON-RPC reply. A tool refusal or failure (403, 404, 422…) is a result with `isError` set to true and the problem document as its text",
    },
  ),
);
export type JsonRpcReply = Static<typeof JsonRpcReply>;
