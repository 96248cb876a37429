import type { AuditLog } from '../audit-log';

/**
 * The audit log, telling `onDidCommit` after each row it committed: how shipping learns of new rows without
 * sitting on the decision path (the listener only schedules work; audit-shipper.ts `wake`).
 */
export function wakingAuditLog(log: AuditLog, onDidCommit: () => void): AuditLog {
  return {
    ...log,
    recordDecision(record) {
      const entry = log.recordDecision(record);
      onDidCommit();
      return entry;
    },
    recordDecisionsWith(records, claim, changes) {
      const claimed = log.recordDecisionsWith(records, claim, changes);
      onDidCommit();
      return claimed;
    },
    recordPolicyChange(record) {
      const entry = log.recordPolicyChange(record);
      onDidCommit();
      return entry;
    },
    recordServerRequest(record) {
      const entry = log.recordServerRequest(record);
      onDidCommit();
      return entry;
    },
    recordToolResult(record) {
      const entry = log.recordToolResult(record);
      onDidCommit();
      return entry;
    },
  };
}
