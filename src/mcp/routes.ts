import { Type } from "@sinclair/typebox";
import { Elysia } from "elysia";
import type { ConversationService } from "../conversations/service.ts";
import type { HttpKit } from "../http/http-kit.ts";
import { requestIdOf } from "../http/request-id.ts";
import { validatedBody } from "../http/validate-body.ts";
import { problems, problemWith } from "../models/problem.ts";
import { conversationTool } from "./conversation-tool.ts";
import { JsonRpcMessage, JsonRpcReply } from "./model.ts";
import type { Log } from "./results.ts";
import { mcpServer, serveMcp } from "./server.ts";
import { type MemoryToolServices, memoryTools } from "./tools.ts";

/** The services the tools ask (the ones their HTTP routes call) and the version `initialize` names. */
export interface McpRouteDeps extends MemoryToolServices {
  http: HttpKit;
  conversations: ConversationService;
  config: { version: string };
}

const DESCRIPTION = [
  "The Model Context Protocol (streamable HTTP, stateless: no session id) for agents, with the tools",
  "memory_add, memory_search, memory_get, memory_list, outcome_record and conversation_add. Same bearer token and",
  "permissions as the HTTP API. Send `Accept: application/json, text/event-stream` and",
  "`Content-Type: application/json`; replies are JSON. GET and DELETE are 405: a stateless server",
  "offers no SSE stream and has no session to end.",
].join(" ");

/** What the streamable HTTP transport asks of `Accept`: both media types named, in any order. */
const ACCEPT_PARAMETER = {
  name: "Accept",
  in: "header" as const,
  required: true,
  description:
    "Must name both application/json and text/event-stream (`application/json, text/event-stream`); otherwise 406",
  schema: {
    type: "string" as const,
    pattern: "application/json.*text/event-stream|text/event-stream.*application/json",
  },
};

/** `POST /mcp`: authorises like every route, then hands the JSON-RPC message to the MCP tools. */
export const mcpRoutes = (deps: McpRouteDeps, log: Log = console.error) => {
  const conversations = conversationTool(deps.conversations);
  const tools = new Map([...memoryTools(deps), [conversations.definition.name, conversations]]);
  return new Elysia({ name: "routes.mcp" }).use(deps.http.authPlugin).post(
    "/mcp",
    async ({ body, principal, req, request }) => {
      const context = {
        caller: { principal, req },
        requestId: requestIdOf(request),
        version: deps.config.version,
        log,
      };
      // The transport's reply goes out as it is; Elysia types a handler's result as the schema's type.
      return (await serveMcp(mcpServer(tools, context), request, body)) as unknown as JsonRpcReply;
    },
    {
      auth: "caller",
      ...validatedBody(JsonRpcMessage),
      response: {
        200: JsonRpcReply,
        202: Type.Null({ description: "A notification or a response: accepted, no body" }),
        ...problems(400, 401, 403, 413, 415, 422),
        ...problemWith(406, "`Accept` does not name both application/json and text/event-stream"),
      },
      detail: {
        tags: ["mcp"],
        summary: "MCP endpoint for agents (JSON-RPC)",
        description: DESCRIPTION,
        // Checked by the MCP transport (406), not by a route schema (which would answer 422): the
        // generator writes no parameters of its own for this route, so these are kept as they are.
        parameters: [ACCEPT_PARAMETER],
      },
    },
  );
};
