import type {
  AuditCheckpointSettings,
  AuditCheckpointsSetInput,
  AuditCheckpointsView,
} from '../../shared/audit-shipping';
import type { Database } from '../storage/database';
import type { CheckpointKey } from './checkpoint';
import type { SqliteAuditLog } from './sqlite-audit-log';

export interface CheckpointerOptions {
  db: Database;
  audit: Pick<SqliteAuditLog, 'recordCheckpoint' | 'head'>;
  settings: { get(): AuditCheckpointSettings; set(change: AuditCheckpointsSetInput): AuditCheckpointSettings };
  /** The signing key (checkpoint.ts `checkpointKey`), made when `create` is set; null when there is none. */
  key: (create: boolean) => CheckpointKey | null;
  /** A checkpoint row was committed (the shipper ships it like any row). */
  onDidCommit?: () => void;
  onError?: (error: unknown) => void;
}

/**
 * Writes signed checkpoints when the setting is on: after every `everyRows` rows (checked a turn after a commit,
 * never inside one), and every `everyMinutes` when rows came in since the last one.
 */
export interface Checkpointer {
  start(): void;
  /** A row was committed. Cheap; the checkpoint, if one is due, is written on a later turn. */
  wake(): void;
  stop(): void;
  /** The setting and the public key (made when checkpoints are first turned on). */
  view(): AuditCheckpointsView;
  update(change: AuditCheckpointsSetInput): AuditCheckpointsView;
}

export function createCheckpointer(options: CheckpointerOptions): Checkpointer {
  const lastCheckpoint = options.db
    .prepare("SELECT coalesce(max(sequence), 0) FROM audit_log WHERE kind = 'checkpoint'")
    .pluck();
  let timer: NodeJS.Timeout | null = null;
  let scheduled = false;
  let started = false;

  const write = (force: boolean): void => {
    try {
      const settings = options.settings.get();
      if (!settings.enabled || !options.db.open) return;
      const head = options.audit.head().sequence;
      const since = head - (lastCheckpoint.get() as number);
      if (since <= 0 || (!force && since < settings.everyRows)) return;
      options.audit.recordCheckpoint(options.key(true) as CheckpointKey);
      options.onDidCommit?.();
    } catch (error) {
      options.onError?.(error);
    }
  };

  const arm = (): void => {
    if (timer) clearInterval(timer);
    timer = null;
    if (!started) return;
    timer = setInterval(() => write(true), options.settings.get().everyMinutes * 60_000);
    timer.unref();
  };

  return {
    start() {
      started = true;
      arm();
    },
    wake() {
      if (scheduled || !started) return;
      scheduled = true;
      setImmediate(() => {
        scheduled = false;
        write(false);
      });
    },
    stop() {
      started = false;
      arm();
    },
    view() {
      const key = options.key(false);
      return { settings: options.settings.get(), publicKeyPem: key?.publicKeyPem ?? null, keyId: key?.keyId ?? null };
    },
    update(change) {
      const settings = options.settings.set(change);
      // The key exists as soon as checkpoints are on, so its public half can be handed to the verifiers first.
      if (settings.enabled) options.key(true);
      arm();
      return this.view();
    },
  };
}
