import type { AuditRecorder } from '../audit/audit-log';
import { canonicalJson } from '../../shared/canonical-json';
import { sha256Hex } from '../audit/audit-row';
import type { Database } from '../storage/database';
import { describeChanges, diffEntries } from './policy-changes';
import type { LoadedManagedPolicy } from './managed-policy';

const SUBJECT = 'managed';

/** A value flattened to one entry per leaf; lists of objects with an `id` (rules) keyed by that id. */
export function flattenEntries(
  value: unknown,
  prefix: string,
  into = new Map<string, unknown>(),
): Map<string, unknown> {
  const key = (name: string): string =>
    `${prefix === '' ? '' : `${prefix}/`}${name.replaceAll('~', '~0').replaceAll('/', '~1')}`;
  if (
    Array.isArray(value) &&
    value.length > 0 &&
    value.every(
      (item) => item !== null && typeof item === 'object' && typeof (item as { id?: unknown }).id === 'string',
    )
  ) {
    for (const item of value as { id: string }[]) into.set(key(item.id), item);
    return into;
  }
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
    // An empty section (`defaults: {}`) says nothing: it has no entry.
    for (const [name, item] of Object.entries(value)) flattenEntries(item, key(name), into);
    return into;
  }
  into.set(prefix, value);
  return into;
}

/** The policy's OAuth client secrets (docs/user/organisation-policy.md#oauth) are never recorded: only that one is set. */
const SECRET_KEYS = new Set(['clientSecret', 'idpClientSecret']);
const SECRET_SET = '[secret set]';
function withoutSecrets(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutSecrets);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, item]) => [
      key,
      SECRET_KEYS.has(key) && typeof item === 'string' ? SECRET_SET : withoutSecrets(item),
    ]),
  );
}

/** The managed policy as one entry per setting, with the file it came from; its OAuth secrets left out. */
function entriesOf(managed: LoadedManagedPolicy | null): Map<string, unknown> {
  if (!managed) return new Map();
  const entries = flattenEntries({ ...managed.policy, oauth: withoutSecrets(managed.policy.oauth) }, '');
  entries.set('file', managed.file);
  entries.set('source', managed.source);
  return entries;
}

/**
 * Run once per start, before anything is decided: when the organisation's policy file differs from what the last start
 * saw (changed, appeared, or went away), a policy row by the actor `managed` records the difference (docs/user/audit-log.md).
 * The snapshot lives in the database (migration 7), so the row is written once per change, not once per start.
 */
export function recordManagedPolicySeen(
  db: Database,
  audit: Pick<AuditRecorder, 'recordPolicyChange'>,
  managed: LoadedManagedPolicy | null,
  now: () => number = Date.now,
): void {
  const entries = entriesOf(managed);
  const snapshot = canonicalJson(Object.fromEntries(entries));
  const hash = sha256Hex(snapshot);
  const last = db
    .prepare<[string], { hash: string; snapshot: string }>(
      'SELECT hash, snapshot FROM policy_snapshots WHERE subject = ?',
    )
    .get(SUBJECT);
  if (last === undefined && !managed) return;
  if (last?.hash === hash) return;
  const before = new Map(
    Object.entries(last === undefined ? {} : (JSON.parse(last.snapshot) as Record<string, unknown>)),
  );
  const diff = diffEntries(before, entries);
  const what = !managed ? 'removed' : last === undefined ? 'first seen' : 'changed';
  const file = managed?.file ?? String(before.get('file') ?? '');
  audit.recordPolicyChange({
    actor: 'managed',
    summary: describeChanges(`Organisation policy ${file} ${what}`, diff.keys, diff.before, diff.after),
    before: diff.before,
    after: diff.after,
  });
  db.prepare<[string, string, string, number]>(
    `INSERT INTO policy_snapshots (subject, hash, snapshot, seen_at) VALUES (?, ?, ?, ?)
     ON CONFLICT (subject) DO UPDATE SET hash = excluded.hash, snapshot = excluded.snapshot, seen_at = excluded.seen_at`,
  ).run(SUBJECT, hash, snapshot, now());
}
