#!/usr/bin/env bash
# Signs a Standard Webhooks delivery with openssl and posts it with curl.
# Needs: TENANT (the tenant's ULID), STANDARD_WEBHOOK_SECRET (the value of STANDARD_WEBHOOK_SECRET_<TENANT>
# in the service's environment, `whsec_` + base64), and BASE (default http://127.0.0.1:8080).
set -euo pipefail
BASE=${BASE:-http://127.0.0.1:8080}
ID="msg_$(date +%s)$RANDOM"
TS=$(date +%s)
BODY='{"type":"invoice.completed","timestamp":"2026-11-23T10:00:00Z","data":{"id":"inv_1","description":"paid in full"}}'
# The key is the bytes the base64 after `whsec_` encodes; the signed text is "id.timestamp.body".
KEY_HEX=$(printf %s "${STANDARD_WEBHOOK_SECRET#whsec_}" | base64 -d | od -An -tx1 | tr -d ' \n')
SIG=$(printf '%s.%s.%s' "$ID" "$TS" "$BODY" | openssl dgst -sha256 -mac HMAC -macopt "hexkey:$KEY_HEX" -binary | base64)
curl -sS -X POST "$BASE/webhooks/standard/$TENANT" \
  -H 'Content-Type: application/json' \
  -H "webhook-id: $ID" -H "webhook-timestamp: $TS" -H "webhook-signature: v1,$SIG" \
  -d "$BODY"
