/**
 * One MCP request, served statelessly: a fresh low-level `Server` and streamable HTTP transport per
 * POST, with no session id. Nothing is kept between requests, so any process of the runtime can
 * answer any request, and the caller (resolved by the auth plugin from this request's token) is
 * simply in scope of the tool handlers.
 */
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import {
  CallToolRequestSchema,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
} from "@modelcontextprotocol/sdk/types.js";
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv";
import type { Caller } from "../auth/caller.ts";
import { type AppError, BadRequest, NotAcceptable, UnsupportedMediaType } from "../errors/domain-errors.ts";
import { safeEcho } from "../http/safe-echo.ts";
import { type Log, toolError, toolSuccess } from "./results.ts";
import type { McpTool } from "./tools.ts";

export interface McpContext {
  caller: Caller;
  requestId: string;
  version: string;
  log: Log;
}

const INSTRUCTIONS =
  "Typed, bi-temporal memory of your tenant. Entries have a category (decision, exception, fact, workflow, relationship, outcome). Search before you add; record outcomes of decisions with outcome_record. A refused or invalid call returns isError with a problem document (status, code, detail).";

/**
 * A `Server` builds a JSON Schema validator (an Ajv instance) unless given one: most of the cost of a
 * server per request. It is only used for elicitation, which these tools never ask for, so one is shared.
 */
const sharedValidator = new AjvJsonSchemaValidator();

/** A server answering `tools/list` and `tools/call` for one caller. */
export function mcpServer(tools: ReadonlyMap<string, McpTool>, context: McpContext): Server {
  const server = new Server(
    { name: "typed-memory-runtime", version: context.version },
    { capabilities: { tools: {} }, instructions: INSTRUCTIONS, jsonSchemaValidator: sharedValidator },
  );
  const definitions = [...tools.values()].map((tool) => tool.definition);
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: definitions }));
  server.setRequestHandler(CallToolRequestSchema, async ({ params }) => {
    const tool = tools.get(params.name);
    // Calling a tool that does not exist is a protocol fault, not a tool's failure.
    if (!tool)
      throw new McpError(
        ErrorCode.InvalidParams,
        `unknown tool: ${safeEcho(params.name)}; the tools are ${[...tools.keys()].join(", ")}`,
      );
    try {
      return toolSuccess(await tool.run(context.caller, params.arguments ?? {}));
    } catch (error) {
      return toolError(error, context.requestId, context.log);
    }
  });
  return server;
}

/**
 * Hands the already parsed and checked JSON-RPC message to a stateless transport answering JSON (not
 * an SSE stream: every reply is ready when the tool returns). The transport's own refusals (Accept,
 * Content-Type, a malformed message) become problem documents like every other error of the API.
 */
export async function serveMcp(server: Server, request: Request, message: unknown): Promise<Response> {
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: true,
  });
  await server.connect(transport);
  try {
    const response = await transport.handleRequest(request, { parsedBody: message });
    if (response.status >= 400) throw await refusalOf(response);
    return response;
  } finally {
    await server.close();
  }
}

/** The transport's refusal (a JSON-RPC error without id) as the matching AppError. */
async function refusalOf(response: Response): Promise<AppError> {
  const body = (await response.json().catch(() => undefined)) as
    | { error?: { message?: unknown } }
    | undefined;
  const message = typeof body?.error?.message === "string" ? body.error.message : "not a valid MCP request";
  if (response.status === 406) return new NotAcceptable(message);
  if (response.status === 415) return new UnsupportedMediaType(message);
  if (response.status < 500) return new BadRequest(message);
  throw new Error(`MCP transport answered ${response.status}: ${message}`);
}
