import { randomUUID } from 'node:crypto';
import os from 'node:os';
import type { AuditShippingStatus, AuditSinkStatus } from '../../../shared/audit-shipping';
import type { Database } from '../../storage/database';
import type { ShippedSinkConfig } from './audit-sink';
import { createShippingCursors, type ShippingCursors } from './shipping-cursors';
import { createShippingThread, type ShippingThread } from './shipping-thread';

/** A configured sink and where its configuration came from. */
export interface ShippingTarget {
  config: ShippedSinkConfig;
  origin: 'settings' | 'managed';
}

export interface AuditShipperOptions {
  db: Database;
  /** The sinks to ship to now (disabled ones included: they show in the status). */
  targets: () => readonly ShippingTarget[];
  /** Subscribes to changes of `targets`; the shipper restarts its sinks on each. */
  onDidChangeTargets?: (listener: () => void) => () => void;
  /**
   * The shipping thread's file (`builtAssets().auditShipWorker`): rows are read, encoded and sent there, on
   * a read-only connection of its own, never on the thread that commits them.
   */
  workerFile: string;
  /** The app's version (OpenTelemetry's `service.version`). */
  version?: string;
  /** Syslog sinks: connection timeout and HOSTNAME (shipping-thread-protocol.ts). */
  sinkOptions?: { connectTimeoutMs?: number; hostname?: string };
  now?: () => number;
  /** Rows written by another process (the CLI) wake nobody here: the shipper also looks this often. */
  pollMs?: number;
  /** Backoff after a failure: doubles from `initialBackoffMs` up to `maxBackoffMs`. */
  initialBackoffMs?: number;
  maxBackoffMs?: number;
  /**
   * Syslog over TCP has no acknowledgement: when a connection breaks, what was written to it within this
   * long before is sent again (at least once: the receiver may see those rows twice).
   */
  resendWindowMs?: number;
  /** How long a process's claim on a sink lasts without renewal (the claim is renewed with every batch). */
  leaseMs?: number;
  /**
   * Yielding to the decision path: while a row was committed within `busyWindowMs` (500 ms), batches are at most
   * `BUSY_BATCH_ROWS` rows and the runner rests `restFactor` (5) times as long as a batch took before the next, so a
   * catch-up leaves the two cores to the tool loop (docs/user/audit-shipping.md). With nothing committing, batches
   * go back to back at the sink's size.
   */
  busyWindowMs?: number;
  restFactor?: number;
  onError?: (error: unknown) => void;
}

/**
 * Ships the audit log to every enabled sink, at least once and in sequence order, off the decision path:
 * committing a row only wakes the shipper, whose thread (ship-worker.ts) reads batches from `audit_log` itself
 * (no second copy) after the sink's persistent cursor; the cursor advances once the sink acknowledged a batch.
 * The main thread keeps only the cursors and leases: one small write per batch.
 */
export interface AuditShipper {
  /** Starts shipping (the hosts call it once they are up); idempotent. */
  start(): void;
  /** A row was committed: ship it soon. Cheap and never throws; the work happens later, in batches. */
  wake(): void;
  status(): AuditShippingStatus;
  /** Stops every sink, closing its connection after the batch in flight, and gives up the leases. */
  stop(): Promise<void>;
}

export function createAuditShipper(options: AuditShipperOptions): AuditShipper {
  const { db, now = Date.now } = options;
  const cursors = createShippingCursors(db);
  const owner = leaseOwner();
  const headRow = db.prepare('SELECT sequence FROM audit_head WHERE id = 1');
  const rowTime = db.prepare('SELECT time FROM audit_log WHERE sequence = ?').pluck();
  let thread: ShippingThread | null = null;
  let runners: Runner[] = [];
  let started = false;
  let unsubscribe: (() => void) | null = null;
  let wakeScheduled = false;
  let lastCommitAt = -Infinity;
  const busyWindowMs = options.busyWindowMs ?? 500;
  const decisionPathBusy = (): boolean => performance.now() - lastCommitAt < busyWindowMs;

  const startRunners = (): void => {
    const enabled = options.targets().filter((target) => target.config.enabled);
    if (enabled.length === 0) return;
    thread ??= createShippingThread({
      workerFile: options.workerFile,
      databaseFile: db.name,
      version: options.version ?? '0.0.0',
      ...options.sinkOptions,
    });
    const shipping = thread;
    runners = enabled.map((target) =>
      startRunner(target.config, { ...options, cursors, owner, thread: shipping, now, decisionPathBusy }),
    );
  };

  return {
    start() {
      if (started) return;
      started = true;
      startRunners();
      unsubscribe =
        options.onDidChangeTargets?.(() => {
          const old = runners;
          runners = [];
          // The new sinks start only once the old ones have let go of their leases and connections.
          void Promise.all(old.map((runner) => runner.stop())).then(() => {
            if (started) startRunners();
          });
        }) ?? null;
    },
    wake() {
      lastCommitAt = performance.now();
      // Deferred: the committing call returns first, and a burst of commits wakes the runners once.
      if (wakeScheduled || runners.length === 0) return;
      wakeScheduled = true;
      setImmediate(() => {
        wakeScheduled = false;
        for (const runner of runners) runner.wake();
      });
    },
    status() {
      const head = (headRow.get() as { sequence: number } | undefined)?.sequence ?? 0;
      const at = now();
      return {
        sinks: options.targets().map(({ config, origin }): AuditSinkStatus => {
          const cursor = cursors.get(config.id);
          const acknowledged = Math.min(cursor.sequence, head);
          const oldest = head > acknowledged ? (rowTime.get(acknowledged + 1) as string | undefined) : undefined;
          return {
            id: config.id,
            type: config.type,
            origin,
            enabled: config.enabled,
            acknowledgedSequence: cursor.sequence,
            acknowledgedAt: iso(cursor.acknowledgedAt),
            headSequence: head,
            lagRows: head - acknowledged,
            lagSeconds: oldest === undefined ? 0 : Math.max(0, (at - Date.parse(oldest)) / 1000),
            lastError: cursor.lastError,
            lastErrorAt: iso(cursor.lastErrorAt),
          };
        }),
      };
    },
    async stop() {
      started = false;
      unsubscribe?.();
      unsubscribe = null;
      const old = runners;
      runners = [];
      await Promise.all(old.map((runner) => runner.stop()));
      const ended = thread;
      thread = null;
      await ended?.terminate();
    },
  };
}

interface Runner {
  wake(): void;
  stop(): Promise<void>;
}

interface RunnerContext extends AuditShipperOptions {
  cursors: ShippingCursors;
  owner: string;
  thread: ShippingThread;
  now: () => number;
  /** Whether a row was committed within `busyWindowMs`. */
  decisionPathBusy: () => boolean;
}

/** The largest batch while the decision path is busy: a short burst of the shipping thread's work. */
const BUSY_BATCH_ROWS = 100;
/** The longest rest: a batch that took long waited on a slow receiver, not on the cores. */
const MAX_REST_MS = 50;

/** A batch the sink acknowledged, kept for the resend window. */
interface Sent {
  first: number;
  at: number;
}

/** One sink's loop, top to bottom: claim, read after the cursor, send, acknowledge; on failure back off. */
function startRunner(config: ShippedSinkConfig, context: RunnerContext): Runner {
  const { cursors, owner, now, thread } = context;
  const pollMs = context.pollMs ?? 2000;
  const initialBackoffMs = context.initialBackoffMs ?? 250;
  const maxBackoffMs = context.maxBackoffMs ?? 60_000;
  const resendWindowMs = context.resendWindowMs ?? 2000;
  const leaseMs = context.leaseMs ?? 30_000;
  const restFactor = context.restFactor ?? 5;
  let stopped = false;
  let recent: Sent[] = [];
  let brokeAt: number | null = null;
  let leasedUntil = 0;
  let wakeUp: (() => void) | null = null;
  let endRest: (() => void) | null = null;

  // A pause ends early when a row is committed (wake) or the connection breaks; a rest only when stopping.
  const pause = (ms: number, { rest = false } = {}): Promise<void> =>
    new Promise((resolve) => {
      const timer = setTimeout(finish, ms);
      function finish(): void {
        clearTimeout(timer);
        wakeUp = null;
        endRest = null;
        resolve();
      }
      if (rest) endRest = finish;
      else wakeUp = finish;
    });

  // What the broken connection may have dropped: every batch acknowledged within the window before the break.
  const unsubscribeBreak = thread.onDidBreak(config.id, () => {
    brokeAt = now();
    wakeUp?.();
  });
  const resendAfterBreak = (): void => {
    if (brokeAt === null) return;
    const since = brokeAt - resendWindowMs;
    brokeAt = null;
    const lost = recent.find((sent) => sent.at >= since);
    recent = [];
    if (lost) cursors.rewind(config.id, lost.first - 1);
  };

  // After a crash the next start need not wait for the lease to run out: a holder on this machine whose
  // process is gone (its id is in the owner) cannot be shipping any more.
  const takeOverFromTheDead = (): boolean => {
    const holder = cursors.holder(config.id);
    return holder !== null && isDeadHere(holder) && cursors.takeOver(config.id, holder, owner, now() + leaseMs);
  };

  const loop = async (): Promise<void> => {
    let backoff = initialBackoffMs;
    while (!stopped) {
      resendAfterBreak();
      // The lease is renewed once a third of it has passed, not with every batch: one write fewer per batch.
      if (now() > leasedUntil - (leaseMs * 2) / 3) {
        if (cursors.lease(config.id, owner, now(), now() + leaseMs) || takeOverFromTheDead())
          leasedUntil = now() + leaseMs;
        else {
          leasedUntil = 0;
          await pause(leaseMs / 2);
          continue;
        }
      }
      try {
        // The thread reads the batch after the cursor, encodes and sends it; here only its ends come back.
        const sentAt = performance.now();
        const busy = context.decisionPathBusy();
        const batch = await thread.ship(
          busy ? { ...config, batchSize: Math.min(config.batchSize, BUSY_BATCH_ROWS) } : config,
          cursors.get(config.id).sequence,
        );
        // A host that closed the database without waiting for stop(): the cursor stays where it was (at least once).
        if (!context.db.open) break;
        if (batch.count === 0) {
          if (!stopped) await pause(pollMs);
          continue;
        }
        cursors.acknowledge(config.id, batch.last, now());
        recent.push({ first: batch.first, at: now() });
        const horizon = now() - resendWindowMs;
        while (recent.length > 0 && (recent[0] as Sent).at < horizon) recent.shift();
        backoff = initialBackoffMs;
        // Yielding to the decision path (AuditShipperOptions.busyWindowMs): a catch-up while tools run goes slower.
        if (busy || context.decisionPathBusy())
          await pause(Math.min((performance.now() - sentAt) * restFactor, MAX_REST_MS), { rest: true });
      } catch (error) {
        if (stopped) break;
        cursors.recordError(config.id, error instanceof Error ? error.message : String(error), now());
        await pause(backoff);
        backoff = Math.min(backoff * 2, maxBackoffMs);
      }
    }
  };

  const running = loop().catch((error: unknown) => context.onError?.(error));
  return {
    wake() {
      wakeUp?.();
    },
    async stop() {
      stopped = true;
      wakeUp?.();
      endRest?.();
      // The batch in flight finishes (and is acknowledged) before the connection closes.
      await running;
      await thread.close(config.id).catch((error: unknown) => context.onError?.(error));
      unsubscribeBreak();
      // A host that closed the database without waiting for this stop: the lease simply expires.
      if (!context.db.open) return;
      // Whatever broke during the last send is still owed to the receiver: rewind before letting go.
      resendAfterBreak();
      cursors.release(config.id, owner);
    },
  };
}

/** `host/pid/random`: unique per process, and tells a process on this machine whether the holder still runs. */
function leaseOwner(): string {
  return `${os.hostname()}/${process.pid}/${randomUUID()}`;
}

function isDeadHere(owner: string): boolean {
  const [host, pid] = owner.split('/');
  if (host !== os.hostname() || !pid || !/^\d+$/.test(pid) || Number(pid) === process.pid) return false;
  try {
    process.kill(Number(pid), 0);
    return false;
  } catch (error) {
    // EPERM: the process exists (another user's); only ESRCH says it is gone.
    return (error as NodeJS.ErrnoException).code === 'ESRCH';
  }
}

function iso(time: number | null): string | null {
  return time === null ? null : new Date(time).toISOString();
}
