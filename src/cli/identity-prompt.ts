import type { IdentityChange } from '../shared/server-identity';
import { INTERRUPTED, type LineReader } from './line-reader';
import { writeRequestFrame } from './request-frame';
import type { Colors } from './terminal';
import { sanitizeForTerminal } from './terminal-text';

/** The answers to a server whose identity is not accepted (docs/user/approvals.md, "A server's identity"). */
export const IDENTITY_CHOICES = '[a] accept what it runs now and start it  [k] keep it stopped';

/**
 * What a server runs and ran, in the words every CLI prompt uses for it: the approval prompt's card of a call of such a
 * server and the question `workbench chat` asks when it sees one change.
 */
export function identityChangeLines(server: string, change: IdentityChange): string[] {
  const show = (text: string): string => sanitizeForTerminal(text);
  return change.unrecorded
    ? [`  ${show(server)} was added to settings.json outside AI Workbench.`, `    runs: ${show(change.current)}`]
    : [
        `  ${show(server)} runs something else than when its settings were made.`,
        `    was: ${show(change.previous)}`,
        `    now: ${show(change.current)}`,
      ];
}

export type IdentityPromptOutcome =
  { kind: 'accept' } | { kind: 'keep' } | { kind: 'interrupted' } | { kind: 'closed' };

/**
 * Asks whether to accept what a server runs now; there is no default (Enter asks again). Accepting starts it;
 * keeping it stopped changes nothing (`workbench servers accept NAME` accepts it later).
 */
export async function askAboutIdentity(
  server: string,
  change: IdentityChange,
  { reader, write, colors }: { reader: LineReader; write(text: string): void; colors: Colors },
): Promise<IdentityPromptOutcome> {
  writeRequestFrame(write, colors, {
    title: `Start ${sanitizeForTerminal(server)}?`,
    tag: 'what it runs changed',
    body: [
      ...identityChangeLines(server, change).map((line) => colors.yellow(line)),
      '  It does not start until you accept what it runs; until then none of its tools can run.',
    ],
    review: 'Check the command before you accept it.',
    choices: [IDENTITY_CHOICES],
  });
  for (;;) {
    const answer = await reader.ask('› ');
    if (answer === INTERRUPTED) return { kind: 'interrupted' };
    if (answer === null) return { kind: 'closed' };
    const key = answer.trim().toLowerCase();
    if (key === 'a') return { kind: 'accept' };
    if (key === 'k') return { kind: 'keep' };
    write(`${IDENTITY_CHOICES}\n`);
  }
}
