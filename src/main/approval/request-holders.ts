import { randomUUID } from 'node:crypto';

/**
 * Which process holds a server's request (docs/user/approvals.md#one-inbox): each waiting row names its owner, a token
 * `PID:RANDOM:HOLDER` made once per engine. The pid tells whether the holder still runs; HOLDER says what it is, so
 * another process can show "held by `workbench chat` (pid 4242)". The token is data in a file the person's other
 * processes can write: it names a process, it grants nothing (an answer is still applied only by the process whose
 * engine made the token, through the card's own path).
 */

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
