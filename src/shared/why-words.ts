/**
 * Why a call asked, or ran without asking, in the words the card, the tool block and the CLI show
 * (docs/user/approvals.md, "In the window"). They are made from the decision's reason (decision-reasons.ts), which
 * words it for the audit log: "Asked because of …", "Auto-approved by your rule #2: …".
 */

/** "Asked because of the tool setting 'Files.write_file' (always ask)" → "Asks because of …". */
export function asksBecause(reason: string): string {
  if (/^Asked because /.test(reason)) return reason.replace(/^Asked because /, 'Asks because ');
  if (/^Asked: /.test(reason)) return reason.replace(/^Asked: /, 'Asks: ');
  return `Asks: ${reason}`;
}

/** "Auto-approved by your rule #2: Files write_file when …" → "Ran without asking: your rule #2: Files write_file when …". */
export function ranWithoutAsking(reason: string): string {
  const by = /^Auto-approved by (.*)$/s.exec(reason);
  if (by) return `Ran without asking: ${by[1]}`;
  const setting = /^Auto-approved: (.*)$/s.exec(reason);
  if (setting) return `Ran without asking: ${setting[1]}`;
  return `Ran without asking: ${reason.charAt(0).toLowerCase()}${reason.slice(1)}`;
}
