import type { Database } from '../../storage/database';

/** One sink's row of `audit_shipping_cursors` (migration 5). */
export interface SinkCursor {
  sinkId: string;
  /** The last sequence the sink acknowledged; 0 before the first. */
  sequence: number;
  acknowledgedAt: number | null;
  lastError: string | null;
  lastErrorAt: number | null;
}

/**
 * The persistent cursors of audit shipping: the only state shipping keeps. Each write is its own small
 * transaction, never inside an audit commit, so a cursor never holds the audit log's write lock for long.
 */
export interface ShippingCursors {
  /** The sink's cursor; a sink never seen starts at 0 (every row is shipped). Only reads. */
  get(sinkId: string): SinkCursor;
  /** Moves the cursor to `sequence` (forward after an acknowledgement, back when a resend is needed) and clears the error. */
  acknowledge(sinkId: string, sequence: number, at: number): void;
  /** Moves the cursor back so the rows after `sequence` are sent again; never forward. */
  rewind(sinkId: string, sequence: number): void;
  recordError(sinkId: string, message: string, at: number): void;
  /**
   * Takes or renews the sink's lease until `until`; false while another live process holds it, so two
   * processes never ship the same sink at once (each would resend what the other sent).
   */
  lease(sinkId: string, owner: string, now: number, until: number): boolean;
  /** Who holds the sink's lease now, if anyone. */
  holder(sinkId: string): string | null;
  /** Takes the lease from `from` (a process known to be gone); false when someone else took it meanwhile. */
  takeOver(sinkId: string, from: string, owner: string, until: number): boolean;
  /** Gives the lease up (on a clean stop), so another process may ship at once. */
  release(sinkId: string, owner: string): void;
}

const MAX_ERROR_LENGTH = 2000;

export function createShippingCursors(db: Database): ShippingCursors {
  const ensure = db.prepare('INSERT INTO audit_shipping_cursors (sink_id) VALUES (?) ON CONFLICT (sink_id) DO NOTHING');
  const select = db.prepare(
    'SELECT sink_id AS sinkId, sequence, acknowledged_at AS acknowledgedAt, last_error AS lastError, last_error_at AS lastErrorAt FROM audit_shipping_cursors WHERE sink_id = ?',
  );
  // One statement each: a batch's acknowledgement is a single small write.
  const acknowledge = db.prepare(
    'INSERT INTO audit_shipping_cursors (sink_id, sequence, acknowledged_at) VALUES (?, ?, ?) ' +
      'ON CONFLICT (sink_id) DO UPDATE SET sequence = excluded.sequence, acknowledged_at = excluded.acknowledged_at, last_error = NULL, last_error_at = NULL',
  );
  const rewind = db.prepare('UPDATE audit_shipping_cursors SET sequence = min(sequence, ?) WHERE sink_id = ?');
  const error = db.prepare(
    'INSERT INTO audit_shipping_cursors (sink_id, last_error, last_error_at) VALUES (?, ?, ?) ' +
      'ON CONFLICT (sink_id) DO UPDATE SET last_error = excluded.last_error, last_error_at = excluded.last_error_at',
  );
  const lease = db.prepare(
    'UPDATE audit_shipping_cursors SET lease_owner = ?, lease_until = ? WHERE sink_id = ? AND (lease_owner IS NULL OR lease_owner = ? OR lease_until IS NULL OR lease_until < ?)',
  );
  const holder = db.prepare('SELECT lease_owner FROM audit_shipping_cursors WHERE sink_id = ?').pluck();
  const takeOver = db.prepare(
    'UPDATE audit_shipping_cursors SET lease_owner = ?, lease_until = ? WHERE sink_id = ? AND lease_owner = ?',
  );
  const release = db.prepare(
    'UPDATE audit_shipping_cursors SET lease_owner = NULL, lease_until = NULL WHERE sink_id = ? AND lease_owner = ?',
  );

  return {
    get(sinkId) {
      return (
        (select.get(sinkId) as SinkCursor | undefined) ?? {
          sinkId,
          sequence: 0,
          acknowledgedAt: null,
          lastError: null,
          lastErrorAt: null,
        }
      );
    },
    acknowledge(sinkId, sequence, at) {
      acknowledge.run(sinkId, sequence, at);
    },
    rewind(sinkId, sequence) {
      rewind.run(sequence, sinkId);
    },
    recordError(sinkId, message, at) {
      error.run(sinkId, message.slice(0, MAX_ERROR_LENGTH), at);
    },
    lease(sinkId, owner, now, until) {
      ensure.run(sinkId);
      return lease.run(owner, until, sinkId, owner, now).changes === 1;
    },
    holder(sinkId) {
      return (holder.get(sinkId) as string | null | undefined) ?? null;
    },
    takeOver(sinkId, from, owner, until) {
      return takeOver.run(owner, until, sinkId, from).changes === 1;
    },
    release(sinkId, owner) {
      release.run(sinkId, owner);
    },
  };
}
