import { AUDIT_FIELDS, canonicalRowOf } from '../audit-row';
import { AUDIT_SOURCE_NAME } from './audit-sink';
import { SHIPPED_FIELDS } from './shipped-fields';

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

/** RFC 5424 severities used: notice for a denial, a failed tool or a policy change, informational for the rest. */
const SEVERITY = { notice: 5, informational: 6 } as const;

const BOM = '\ufeff';

/** Where each shipped field sits in a stored row, and how its parameter starts. */
const PARAM_PREFIXES = SHIPPED_FIELDS.map(([name]) => ` ${name}="`);
const PARAM_INDEXES = SHIPPED_FIELDS.map(([, field]) => AUDIT_FIELDS.indexOf(field));
const KIND_INDEX = AUDIT_FIELDS.indexOf('kind');
const TIME_INDEX = AUDIT_FIELDS.indexOf('time');
const DECISION_INDEX = AUDIT_FIELDS.indexOf('decision');
const OUTCOME_INDEX = AUDIT_FIELDS.indexOf('outcome');

/**
 * The framed messages for a batch of stored rows (`.raw()` arrays in `AUDIT_FIELDS` order), as one buffer for
 * one write.
 */
export function syslogFrames(rows: readonly (readonly unknown[])[], identity: SyslogIdentity): Buffer {
  const header = headerOf(identity);
  const parts: Buffer[] = [];
  for (const values of rows) {
    const message = Buffer.from(messageWith(values, identity.facility, header), 'utf8');
    parts.push(Buffer.from(`${message.length} `, 'latin1'), message);
  }
  return Buffer.concat(parts);
}

/** One row's RFC 5424 message, unframed. */
export function syslogMessage(values: readonly unknown[], identity: SyslogIdentity): string {
  return messageWith(values, identity.facility, headerOf(identity));
}

/** HOSTNAME APP-NAME PROCID and the start of MSGID: the same for every message of a sink. */
function headerOf(identity: SyslogIdentity): string {
  return ` ${headerField(identity.hostname, 255)} ${AUDIT_SOURCE_NAME} ${headerField(identity.procId, 128)} audit-`;
}

function messageWith(values: readonly unknown[], facility: number, header: string): string {
  const decision = values[DECISION_INDEX];
  // A change of the approval policy is worth a security team's notice, as a denial is.
  const notice =
    decision === 'deny' ||
    decision === 'auto_deny' ||
    values[OUTCOME_INDEX] === 'error' ||
    values[KIND_INDEX] === 'policy';
  let data = `<${facility * 8 + (notice ? SEVERITY.notice : SEVERITY.informational)}>1 ${String(values[TIME_INDEX])}${header}${String(values[KIND_INDEX])} [${SYSLOG_SD_ID}`;
  for (let param = 0; param < PARAM_INDEXES.length; param++) {
    const value = values[PARAM_INDEXES[param] as number];
    if (value === null || value === undefined) continue;
    data += `${PARAM_PREFIXES[param] as string}${typeof value === 'string' ? escapeParamValue(value) : String(value)}"`;
  }
  return `${data}] ${BOM}${canonicalRowOf(values)}`;
}

const NEEDS_ESCAPE = /["\\\]]/;

/** RFC 5424 §6.3.3: `"`, `\` and `]` are escaped with a backslash inside a PARAM-VALUE. */
function escapeParamValue(value: string): string {
  return NEEDS_ESCAPE.test(value) ? value.replace(/["\\\]]/g, (character) => `\\${character}`) : value;
}

/** Header fields are printable US-ASCII without spaces (RFC 5424 §6); anything else becomes `_`, empty becomes the NILVALUE. */
function headerField(value: string, maxLength: number): string {
  const cleaned = value.replace(/[^\x21-\x7e]/g, '_').slice(0, maxLength);
  return cleaned === '' ? '-' : cleaned;
}
