/**
 * The MCP tool adding a conversation: the body of `POST /memory/conversations`, checked by the
 * same schema, done by the same ConversationService, answered with the route's JSON.
 */

import type { TSchema } from "@sinclair/typebox";
import { type TypeCheck, TypeCompiler } from "@sinclair/typebox/compiler";
import type { ConversationService } from "../conversations/service.ts";
import { checkBody } from "../http/validate-body.ts";
import { ConversationInput, ConversationReply, MAX_MESSAGES } from "../models/conversation.ts";
import { jsonSchemaOf } from "./schemas.ts";
import type { McpTool } from "./tools.ts";

const CHECK = TypeCompiler.Compile(ConversationInput) as TypeCheck<TSchema>;

export function conversationTool(conversations: ConversationService): McpTool {
  return {
    definition: {
      name: "conversation_add",
      title: "Add a conversation",
      description: `Add up to ${MAX_MESSAGES} messages of a session ({speaker or role, content, at?}), as POST /memory/conversations: each is kept as a searchable turn of the session (a fact tagged \`turn\`), and typed entries are extracted from the new ones (preferences, personal facts, decisions, commitments, appointments, relationships, workflows), each naming the turns it came from; a later statement about the same thing supersedes the earlier one. Sending the same messages again writes nothing; send the transcript from its start (or \`offset\`) to append. \`subject\` scopes it to an end user; \`dry_run\` answers what would be written.`,
      inputSchema: jsonSchemaOf(ConversationInput),
      outputSchema: jsonSchemaOf(ConversationReply),
      annotations: {
        readOnlyHint: false,
        destructiveHint: false,
        idempotentHint: true,
        openWorldHint: false,
      },
    },
    async run(caller, args) {
      checkBody(CHECK, args);
      const { body } = await conversations.add(caller, args as ConversationInput);
      return body;
    },
  };
}
