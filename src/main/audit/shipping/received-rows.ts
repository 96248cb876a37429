/**
 * Reads back what a collector received: a line of an rsyslog file written with the raw-message template
 * (`<PRI>1 … [workbench@32473 sequence="N" …] BOM{row JSON}`), or a line of JSONL (the row JSON alone, as
 * `audit export --format jsonl` and most log stores' exports write it).
 */

export interface ReceivedRow {
  /** The sequence the line names (from its JSON, or from the structured data when the JSON is cut off). */
  sequence: number;
  /** The row's canonical JSON as received; null when the line was cut off or unreadable. */
  json: string | null;
}

const SEQUENCE_PARAM = /\[workbench@32473 sequence="(\d+)"/;

/** One received line; null for a line that names no audit row at all. */
export function parseReceivedLine(line: string): ReceivedRow | null {
  const bom = line.indexOf('\ufeff');
  const json = bom >= 0 ? line.slice(bom + 1) : line.trim().startsWith('{') ? line.trim() : null;
  if (json !== null) {
    try {
      const parsed = JSON.parse(json) as { sequence?: unknown };
      if (typeof parsed.sequence === 'number' && Number.isSafeInteger(parsed.sequence))
        return { sequence: parsed.sequence, json };
    } catch {
      // cut off: the structured data may still name the row
    }
  }
  const match = SEQUENCE_PARAM.exec(line);
  return match ? { sequence: Number(match[1]), json: null } : null;
}
