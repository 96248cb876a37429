import {
  HOLDER_LOOK_RECORD_MS,
  lookedLately,
  newOwnerToken,
  ownerPid,
  type HolderKind,
} from '../approval/request-holders';
import type { Database } from '../storage/database';

/**
 * Which process follows a task call's task (docs/user/mcp-servers.md#tasks): the app and `workbench chat` share one
 * database, and each could look up a task after a restart, so a task's row in `followed_tasks` names its follower — an
 * owner token of the process (src/main/approval/request-holders.ts) — and when it last said it still follows it. Only
 * that process follows it while it runs and says so (every second, `refresh`); a process that is gone (its pid no
 * longer runs) or has gone quiet (`lookedLately`) loses it to the next process that looks (`claim`). The claim is taken
 * in one write transaction, so two processes looking at once cannot both take it.
 *
 * The token names a process and grants nothing: a claim decides only who asks the server about the task, not what
 * runs — nothing is decided or run again by following a task.
 */
export interface TaskClaims {
  /** This process's owner token, written into the rows it follows. */
  readonly follower: string;
  /** Takes the task of this call for this process: true when it follows it now (free, its own, or its follower is gone). */
  claim(toolCallId: string): boolean;
  /**
   * Whether this process still holds the task of this call, and says so: a compare-and-set on its row (its follower
   * must still be this process's token), asked right before each leg is sent. False once another process took it over
   * (or it is not recorded): this process then sends nothing more about it.
   */
  keep(toolCallId: string): boolean;
  /** No longer follows it here (the call lost its server): any process may take it. */
  release(toolCallId: string): void;
  /** Records that this process still follows what it claimed. */
  refresh(): void;
  /** This process stops: what it claimed is let go at once. */
  close(): void;
}

/** The claims of every open host in this process (a closed one's token is dead, whatever its pid). */
const LIVE_FOLLOWERS = new Set<string>();

function processRuns(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as { code?: unknown }).code === 'EPERM';
  }
}

/** Whether a follower named in a row still follows: an open host of this process, or a running process heard lately. */
function follows(follower: string | null, followedAt: number | null, now: number): boolean {
  if (follower === null) return false;
  if (LIVE_FOLLOWERS.has(follower)) return true;
  const pid = ownerPid(follower);
  if (pid === undefined || pid === process.pid) return false;
  return processRuns(pid) && lookedLately(followedAt ?? undefined, now);
}

/** How often a follower says it still follows its tasks (the same rhythm as a request's holder). */
export const FOLLOWER_REFRESH_MS = HOLDER_LOOK_RECORD_MS;

export function createTaskClaims(db: Database, holder: HolderKind | undefined, now: () => number): TaskClaims {
  const follower = newOwnerToken(holder);
  LIVE_FOLLOWERS.add(follower);
  const read = db.prepare('SELECT follower, followed_at FROM followed_tasks WHERE tool_call_id = ?');
  const take = db.prepare('UPDATE followed_tasks SET follower = ?, followed_at = ? WHERE tool_call_id = ?');
  const free = db.prepare(
    'UPDATE followed_tasks SET follower = NULL, followed_at = NULL WHERE tool_call_id = ? AND follower = ?',
  );
  const freeAll = db.prepare('UPDATE followed_tasks SET follower = NULL, followed_at = NULL WHERE follower = ?');
  const touch = db.prepare('UPDATE followed_tasks SET followed_at = ? WHERE follower = ?');
  const touchOne = db.prepare('UPDATE followed_tasks SET followed_at = ? WHERE tool_call_id = ? AND follower = ?');
  const holderOf = (toolCallId: string): { follower: string | null; followed_at: number | null } | undefined =>
    read.get(toolCallId) as { follower: string | null; followed_at: number | null } | undefined;
  const claimOne = db.transaction((toolCallId: string): boolean => {
    const row = holderOf(toolCallId);
    if (!row) return false;
    if (row.follower !== follower && follows(row.follower, row.followed_at, now())) return false;
    take.run(follower, now(), toolCallId);
    return true;
  });
  let closed = false;
  return {
    follower,
    claim: (toolCallId) => !closed && claimOne.immediate(toolCallId),
    keep: (toolCallId) => !closed && touchOne.run(now(), toolCallId, follower).changes === 1,
    release(toolCallId) {
      if (!closed) free.run(toolCallId, follower);
    },
    refresh() {
      if (!closed) touch.run(now(), follower);
    },
    close() {
      if (closed) return;
      closed = true;
      LIVE_FOLLOWERS.delete(follower);
      freeAll.run(follower);
    },
  };
}
