import { type Static, Type } from "@sinclair/typebox";
import { Chars } from "./chars.ts";
import { named } from "./schema-name.ts";

/**
 * The JSON-RPC 2.0 envelope of the Model Context Protocol's streamable HTTP transport, as far as the
 * route checks it: one message per POST (the protocol dropped batches in 2025-06-18). The MCP SDK
 * checks the rest of the message; our check only makes a body that is not a JSON-RPC message a clear
 * 422 before it reaches the SDK.
 */
const JsonRpcId = Type.Union([Type.String({ maxLength: 256 }), Type.Integer()], {
  description: "Echoed in the reply",
});

export const JsonRpcMessage = named(
  "JsonRpcMessage",
  Type.Object(
    {
      jsonrpc: Type.Literal("2.0"),
      id: Type.Optional(JsonRpcId),
      method: Type.Optional(Chars(1, 256, { description: "e.g. initialize, tools/list, tools/call" })),
      params: Type.Optional(Type.Object({}, { additionalProperties: true })),
    },
    {
      additionalProperties: true,
      description: "A JSON-RPC 2.0 request, notification or response (one message, no batch)",
    },
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
