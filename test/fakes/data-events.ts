/** Events of the `data` source (SOURCES.md) as tests send them. */

/** A catalog audit row pushed by a scheduled job: one fact, keyed by its own `event_id`. */
export function catalogAuditRow(eventId: string, fields: Record<string, unknown> = {}) {
  return {
    event_id: eventId,
    event_time: "2026-11-21T08:00:00.000Z",
    service_name: "unityCatalog",
    action_name: "getTable",
    user_identity: { email: "ana@example.com" },
    request_params: { full_name_arg: "main.sales.orders" },
    response: { status_code: 200 },
    ...fields,
  };
}
