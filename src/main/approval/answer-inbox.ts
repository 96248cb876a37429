import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import type { DecisionOrigin } from '../../shared/decisions';
import {
  ServerRequestDecisionSchema,
  type HeldRequestView,
  type ServerRequestDecision,
} from '../../shared/server-request-views';
import type { Database } from '../storage/database';

/**
 * The answers inbox (docs/user/approvals.md#one-inbox, docs/dev/architecture.md "One engine"): a server's request and
 * a view's tool call are held open by the process connected to the server, so an answer given in another process
 * (`workbench approvals allow|deny`, another window of the app) is written here, addressed to the process that holds
 * the request (`pending_requests.owner`). That process takes it and applies it through the same path as a click on
 * the card — the same checks, the same claim with its audit row — and writes back whether it was applied or why not.
 *
 * A row is data, not authority: the holder parses it again, takes only the answers another process may give
 * (`relayProblem`), and an allowed call still meets the deny rules in force when it runs.
 */
export interface AnswerInbox {
  /** Writes an answer for the holder to apply; returns its id. */
  send(answer: { requestId: string; owner: string; decision: ServerRequestDecision; origin: RelayOrigin }): string;
  /** The answer's state: waiting to be taken, being applied, applied, or refused with why. */
  get(answerId: string): StoredAnswer | undefined;
  /**
   * Takes the new answers addressed to `owner`, oldest first: each is taken once (a second take gets nothing). With
   * `lookedAt` (when this look began), records in the same transaction that the owner looked then: the proof other
   * processes ask of a request's holder (`lookedAt`).
   */
  take(owner: string, lookedAt?: number): TakenAnswer[];
  /**
   * When the process that made the owner token `owner` last looked for its answers (recorded by `take`), or undefined
   * when it never did: a token is data anyone who can write the database can copy, a look is what only a process
   * that runs the engine does (docs/user/approvals.md#one-inbox).
   */
  lookedAt(owner: string): number | undefined;
  /** The owner ended: its record of looking goes. */
  forget(owner: string): void;
  /** How a taken answer ended. */
  finish(answerId: string, status: 'applied' | 'refused', message: string | null): void;
  /** Withdraws an answer nobody took yet (the sender gave up waiting); false when it was taken meanwhile. */
  withdraw(answerId: string, message: string): boolean;
}

/** Where an answer relayed through the inbox was given: the CLI, or another process of the app. */
export const RELAY_ORIGINS = ['cli', 'app'] as const satisfies readonly DecisionOrigin[];
export type RelayOrigin = (typeof RELAY_ORIGINS)[number];

export interface StoredAnswer {
  readonly status: 'new' | 'taken' | 'applied' | 'refused';
  readonly message: string | null;
}

/** An answer as taken: already parsed, or the reason it cannot be applied. */
export type TakenAnswer =
  | { answerId: string; requestId: string; ok: true; decision: ServerRequestDecision; origin: RelayOrigin }
  | { answerId: string; requestId: string; ok: false; why: string };

const OriginSchema = z.enum(RELAY_ORIGINS);

/**
 * Why an answer may not come from another process, or undefined when it may: from there a person allows once or
 * denies (or, for a form, accepts with content, declines or cancels); "Allow for this chat" and edits of a request are
 * given only on the card, where the person sees what they change.
 */
export function relayProblem(request: HeldRequestView, decision: ServerRequestDecision): string | undefined {
  if (decision.action === 'allow-chat')
    return '"Allow for this chat" is given on the card in the app, not from another process';
  if (decision.messages !== undefined || decision.systemPrompt !== undefined || decision.text !== undefined)
    return 'a request is edited on the card in the app, not from another process';
  if (decision.content !== undefined && !(request.kind === 'elicitation' && decision.action === 'accept'))
    return 'only an accepted form carries content';
  if (request.kind === 'elicitation' && request.mode === 'url' && decision.action === 'accept')
    return 'a page to open is opened from the app, where you see its address before it opens; decline or cancel it from here';
  return undefined;
}

export function createAnswerInbox(db: Database, now: () => number): AnswerInbox {
  const insert = db.prepare<[string, string, string, string, string, number]>(
    'INSERT INTO pending_answers (answer_id, request_id, owner, decision, origin, created_at) VALUES (?, ?, ?, ?, ?, ?)',
  );
  const get = db.prepare<[string], StoredAnswer>('SELECT status, message FROM pending_answers WHERE answer_id = ?');
  const fresh = db.prepare<[string], { answer_id: string; request_id: string; decision: string; origin: string }>(
    "SELECT answer_id, request_id, decision, origin FROM pending_answers WHERE owner = ? AND status = 'new' ORDER BY rowid",
  );
  const take = db.prepare<[string]>(
    "UPDATE pending_answers SET status = 'taken' WHERE answer_id = ? AND status = 'new'",
  );
  const finish = db.prepare<[string, string | null, string]>(
    "UPDATE pending_answers SET status = ?, message = ? WHERE answer_id = ? AND status = 'taken'",
  );
  const withdraw = db.prepare<[string, string]>(
    "UPDATE pending_answers SET status = 'refused', message = ? WHERE answer_id = ? AND status = 'new'",
  );
  const looked = db.prepare<[string, number]>(
    'INSERT INTO request_holders (owner, looked_at) VALUES (?, ?) ON CONFLICT (owner) DO UPDATE SET looked_at = excluded.looked_at',
  );
  const lookedAt = db.prepare<[string], { looked_at: number }>('SELECT looked_at FROM request_holders WHERE owner = ?');
  const forget = db.prepare<[string]>('DELETE FROM request_holders WHERE owner = ?');
  const takeAll = db.transaction((owner: string, at: number | undefined): TakenAnswer[] => {
    if (at !== undefined) looked.run(owner, at);
    return fresh.all(owner).flatMap((row): TakenAnswer[] => {
      if (take.run(row.answer_id).changes === 0) return [];
      const base = { answerId: row.answer_id, requestId: row.request_id };
      let raw: unknown;
      try {
        raw = JSON.parse(row.decision);
      } catch {
        return [{ ...base, ok: false, why: 'the answer is not JSON' }];
      }
      const decision = ServerRequestDecisionSchema.safeParse(raw);
      const origin = OriginSchema.safeParse(row.origin);
      if (!decision.success) return [{ ...base, ok: false, why: 'the answer is not one a person can give' }];
      if (!origin.success) return [{ ...base, ok: false, why: `"${row.origin}" is not a place an answer comes from` }];
      return [{ ...base, ok: true, decision: decision.data, origin: origin.data }];
    });
  });
  return {
    send({ requestId, owner, decision, origin }) {
      const answerId = randomUUID();
      insert.run(answerId, requestId, owner, JSON.stringify(decision), origin, now());
      return answerId;
    },
    get: (answerId) => get.get(answerId),
    take: (owner, at) => takeAll.immediate(owner, at),
    lookedAt: (owner) => lookedAt.get(owner)?.looked_at,
    forget(owner) {
      forget.run(owner);
    },
    finish(answerId, status, message) {
      finish.run(status, message, answerId);
    },
    withdraw: (answerId, message) => withdraw.run(message, answerId).changes > 0,
  };
}
