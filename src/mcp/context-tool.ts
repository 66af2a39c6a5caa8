/**
 * MCP's `memory_context`: the best entries for a query packed into a token budget, as
 * `POST /memory/context` answers it (docs/context-pack.md), with the same checks and permissions.
 * Its result's first text is the pack's `text` itself: the frame an agent pastes into its prompt.
 */
import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import { type TypeCheck, TypeCompiler } from "@sinclair/typebox/compiler";
import type { Caller } from "../auth/caller.ts";
import { CONTEXT_ENCODING, ContextBody, ContextResponse } from "../context/model.ts";
import type { ContextService } from "../context/service.ts";
import { checkBody } from "../http/validate-body.ts";
import { jsonSchemaOf } from "./schemas.ts";

const check = TypeCompiler.Compile(ContextBody) as TypeCheck<typeof ContextBody>;

/** A tool as tools.ts lists them (its McpTool, written out: tools.ts imports this file). */
export function contextTool({ context }: { context: Pick<ContextService, "pack"> }): {
  definition: Tool;
  run(caller: Caller, args: Record<string, unknown>): Promise<Record<string, unknown>>;
} {
  return {
    definition: {
      name: "memory_context",
      title: "Context for a prompt, within a token budget",
      description: `The best entries for \`query\` packed into \`budget_tokens\` (${CONTEXT_ENCODING} tokens), as POST /memory/context: a prompt-ready block, grouped by category, best first, each entry labelled with its id, validity, trust and origin and its content quoted as data (never instructions). Takes the filters of memory_search (categories, tags, status, valid_at, as_of, subject, session_id, agent_id, min_trust) and its ranking controls. \`entries\` lists what the block holds; \`truncated\` says something relevant did not fit.`,
      inputSchema: jsonSchemaOf(ContextBody),
      outputSchema: jsonSchemaOf(ContextResponse),
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async run(caller, args) {
      checkBody(check, args);
      return context.pack(caller, args as ContextBody);
    },
  };
}

/** Whether a tool's output is a context pack (its text goes first, as it is). */
export function isContextPack(output: Record<string, unknown>): output is { text: string } {
  return typeof output.text === "string" && output.encoding === CONTEXT_ENCODING;
}
