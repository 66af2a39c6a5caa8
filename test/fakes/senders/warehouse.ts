import { randomUUID } from "node:crypto";
import type { PlatformSender, Signed } from "./sender.ts";

/** The export job sends `Authorization: Bearer <token>`: a shared token, no signature, no rotation. */
export const WAREHOUSE_TOKEN = "wh-export-token-8c2d4e6f0a1b3c5d";

export const warehouseSender: PlatformSender = {
  source: "warehouse",
  secrets: { WAREHOUSE_WEBHOOK_TOKEN: WAREHOUSE_TOKEN },
  signsBody: false,
  sign(body: string): Signed {
    return {
      headers: { "content-type": "application/json", authorization: `Bearer ${WAREHOUSE_TOKEN}` },
      body,
    };
  },
};

/** One exported row, with a fresh event_id per call unless given. */
export function warehouseRow(kind: string, fields: Record<string, unknown>): Record<string, unknown> {
  return {
    event_id: `exp_2026_11_21_${randomUUID().slice(0, 8)}`,
    kind,
    valid_from: "2026-11-21T09:00:00Z",
    exported_at: "2026-11-21T09:30:00Z",
    ...fields,
  };
}

/** The body as a JSON array of rows. */
export const rows = (...items: Array<Record<string, unknown>>): string => JSON.stringify(items);

/** The body as `{rows: [...]}`, with the export's own metadata beside them. */
export const wrapped = (...items: Array<Record<string, unknown>>): string =>
  JSON.stringify({ export: "daily_memory_export", run_id: "run_20261121", rows: items });
