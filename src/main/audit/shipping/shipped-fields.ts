import type { AuditField } from '../audit-row';

/**
 * The row fields every sink ships, each under one name: the syslog SD-PARAM (RFC 5424 §6.3.3: up to 32 printable
 * characters) and the OpenTelemetry attribute after `workbench.audit.` (docs/user/audit-shipping.md). The redacted
 * arguments travel in the message body, as the row's canonical JSON.
 */
export const SHIPPED_FIELDS: readonly (readonly [name: string, field: AuditField])[] = [
  ['sequence', 'sequence'],
  ['row_hash', 'hash'],
  ['prev_hash', 'previousHash'],
  ['kind', 'kind'],
  ['chat_id', 'chatId'],
  ['exchange_id', 'exchangeId'],
  ['tool_call_id', 'toolCallId'],
  ['server', 'serverName'],
  ['tool', 'toolName'],
  ['definition_hash', 'definitionHash'],
  ['decision', 'decision'],
  ['actor', 'actor'],
  ['decided_by', 'decidedBy'],
  ['requested_by', 'requestedBy'],
  ['reason', 'reason'],
  ['args_hash', 'argsHash'],
  ['edited_args_hash', 'editedArgsHash'],
  ['outcome', 'outcome'],
  ['duration_ms', 'durationMs'],
  ['result_bytes', 'resultBytes'],
  ['error', 'error'],
];
