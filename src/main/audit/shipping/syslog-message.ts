import { canonicalRowOf, storedRowOf } from '../audit-row';
import { AUDIT_SOURCE_NAME } from './audit-sink';

/**
 * One audit row as an RFC 5424 syslog message, framed for TCP by octet counting (RFC 6587 §3.4.1):
 *
 *   MSG-LEN SP <PRI>1 TIMESTAMP HOSTNAME APP-NAME PROCID MSGID [workbench@32473 …] BOM{canonical row JSON}
 *
 * The structured data carries the row's fields for a SIEM to index; the message is the row's canonical
 * JSON, exactly the line `audit export --format jsonl` writes, so what a collector holds can be checked
 * against the local chain (`audit verify --against`). Rows are stored already redacted (redact.ts), so
 * nothing here needs redacting again.
 */

/** The SD-ID. 32473 is the private enterprise number RFC 5612 reserves for documentation and examples. */
export const SYSLOG_SD_ID = 'workbench@32473';

export interface SyslogIdentity {
  /** RFC 5424 facility, 0–23. */
  facility: number;
  hostname: string;
  procId: string;
}

/** RFC 5424 severities used: notice for a denial or a failed tool, informational for the rest. */
const SEVERITY = { notice: 5, informational: 6 } as const;

/** SD-PARAM names (RFC 5424 §6.3.3: up to 32 printable characters) for each row field shipped. */
const PARAMS = [
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
  ['reason', 'reason'],
  ['args_hash', 'argsHash'],
  ['edited_args_hash', 'editedArgsHash'],
  ['outcome', 'outcome'],
  ['duration_ms', 'durationMs'],
  ['result_bytes', 'resultBytes'],
  ['error', 'error'],
] as const;

const BOM = '\ufeff';

/** The framed message for one stored row (a `.raw()` array in `AUDIT_FIELDS` order). */
export function syslogFrame(values: readonly unknown[], identity: SyslogIdentity): Buffer {
  const message = Buffer.from(syslogMessage(values, identity), 'utf8');
  return Buffer.concat([Buffer.from(`${message.length} `, 'ascii'), message]);
}

export function syslogMessage(values: readonly unknown[], identity: SyslogIdentity): string {
  const row = storedRowOf(values);
  const denied = row.decision === 'deny' || row.decision === 'auto_deny' || row.outcome === 'error';
  const priority = identity.facility * 8 + (denied ? SEVERITY.notice : SEVERITY.informational);
  let data = `[${SYSLOG_SD_ID}`;
  for (const [name, field] of PARAMS) {
    const value = row[field];
    if (value === null || value === undefined) continue;
    data += ` ${name}="${escapeParamValue(String(value))}"`;
  }
  data += ']';
  return `<${priority}>1 ${row.time} ${headerField(identity.hostname, 255)} ${AUDIT_SOURCE_NAME} ${headerField(identity.procId, 128)} audit-${row.kind} ${data} ${BOM}${canonicalRowOf(values)}`;
}

/** RFC 5424 §6.3.3: `"`, `\` and `]` are escaped with a backslash inside a PARAM-VALUE. */
function escapeParamValue(value: string): string {
  return value.replace(/["\\\]]/g, (character) => `\\${character}`);
}

/** Header fields are printable US-ASCII without spaces (RFC 5424 §6); anything else becomes `_`, empty becomes the NILVALUE. */
function headerField(value: string, maxLength: number): string {
  const cleaned = value.replace(/[^\x21-\x7e]/g, '_').slice(0, maxLength);
  return cleaned === '' ? '-' : cleaned;
}
