/**
 * Tool results. A tool that fails answers a result with `isError: true` rather than a JSON-RPC error,
 * so the agent reads why (the same problem document the HTTP route would answer) and can correct its
 * call; JSON-RPC errors stay for protocol faults (an unknown tool or method).
 */
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { durableDenial, logServerFault, problemResponse, toAppError } from "../http/errors.ts";
import { isContextPack } from "./context-tool.ts";
import { entriesOf, evidenceText } from "./evidence.ts";
import type { ToolOutput } from "./tools.ts";

export type Log = (line: string) => void;

/**
 * The route's JSON as structured content, and as text for clients that read text only. A result
 * carrying stored entries leads with them framed as quoted evidence (evidence.ts): recalled text is
 * data, never instructions.
 */
export function toolSuccess(output: ToolOutput): CallToolResult {
  const json = { type: "text" as const, text: JSON.stringify(output) };
  // A context pack's text is its frame already (src/context/pack.ts).
  if (isContextPack(output))
    return { content: [{ type: "text", text: output.text }, json], structuredContent: output };
  const entries = entriesOf(output);
  const content = entries ? [{ type: "text" as const, text: evidenceText(entries) }, json] : [json];
  return { content, structuredContent: output };
}

/**
 * The problem document of `error` as a tool error. No structured content: a client checks structured
 * content against the tool's output schema (an entry), which a problem is not.
 */
export async function toolError(error: unknown, requestId: string, log: Log): Promise<CallToolResult> {
  const appError = await durableDenial(toAppError(error), log);
  logServerFault(log, requestId, appError, error);
  // Rendered by the function that renders the HTTP errors, so both carry the same document.
  const problem = await problemResponse(appError, requestId).text();
  return { content: [{ type: "text", text: problem }], isError: true };
}
