import { randomUUID } from 'node:crypto';

/**
 * Which process holds a server's request (docs/user/approvals.md#one-inbox): each waiting row names its owner, a token
 * `PID:RANDOM:HOLDER` made once per engine. The pid tells whether the holder still runs; HOLDER says what it is, so
 * another process can show "held by `workbench chat` (pid 4242)". The token is data in a file the person's other
 * processes can write: it names a process, it grants nothing (an answer is still applied only by the process whose
 * engine made the token, through the card's own path).
 *
 * Nor does a token prove that its pid is a holder: a record can name any running process (pid 1, the app's own). A
 * holder proves it by what only a running engine does: it looks for its answers (every 200 ms while it holds
 * something) and records when it looked (`AnswerInbox.take`). Another process believes a holder that is running and
 * looked lately (`lookedLately`); an answer it sent is given up as soon as the holder looked after it without taking
 * it (`lookedPast`).
 */

/** How often a holder records that it looked for answers (it looks more often; the record is throttled). */
export const HOLDER_LOOK_RECORD_MS = 1_000;
/** How long a holder may go without looking before other processes stop believing that it holds anything. */
export const HOLDER_QUIET_MS = 10_000;
/** A look recorded ahead of this process's clock by more than this is not believed (a record written for the future). */
const CLOCK_SLACK_MS = 1_000;

/** Whether a holder that last looked for its answers at `lookedAt` has shown, at `now`, that it still answers. */
export function lookedLately(lookedAt: number | undefined, now: number): boolean {
  return lookedAt !== undefined && lookedAt <= now + CLOCK_SLACK_MS && now - lookedAt <= HOLDER_QUIET_MS;
}

/**
 * Whether a holder looked for its answers after an answer was sent to it (`sentAt`, read once the answer was written)
 * and yet did not take it: a holder takes every answer addressed to it when it looks, so one that did not is no holder.
 */
export function lookedPast(lookedAt: number | undefined, sentAt: number): boolean {
  return lookedAt !== undefined && lookedAt > sentAt;
}

/** What a process is, as written in its owner token: the app, browser mode, or a CLI command (`cli chat`). */
export type HolderKind = string;

/** The holder of this process: `electron`, `browser`, or `cli COMMAND`. */
export function holderKind(host: string, command?: string): HolderKind {
  if (host !== 'cli') return host;
  return command && COMMAND.test(command) ? `cli ${command}` : 'cli';
}

/** A new owner token for an engine of this process. */
export function newOwnerToken(holder: HolderKind | undefined): string {
  const kind = holder && HOLDER.test(holder) ? holder : '';
  return `${process.pid}:${randomUUID()}${kind ? `:${kind}` : ''}`;
}

/** The pid an owner token names, or undefined when it names none. */
export function ownerPid(owner: string): number | undefined {
  const pid = Number(owner.split(':')[0]);
  return Number.isInteger(pid) && pid > 0 ? pid : undefined;
}

/**
 * The holder in words, from its token: "workbench chat", "the AI Workbench app", "AI Workbench in browser mode", or
 * "another AI Workbench process" when the token says nothing this version knows.
 */
export function holderWords(owner: string): string {
  const kind = owner.split(':')[2] ?? '';
  if (kind === 'electron') return 'the AI Workbench app';
  if (kind === 'browser') return 'AI Workbench in browser mode';
  if (kind === 'cli') return 'workbench';
  const command = /^cli ([a-z][a-z -]{0,40})$/.exec(kind)?.[1];
  return command ? `workbench ${command}` : 'another AI Workbench process';
}

const COMMAND = /^[a-z][a-z -]{0,40}$/;
const HOLDER = /^(?:electron|browser|cli(?: [a-z][a-z -]{0,40})?)$/;
