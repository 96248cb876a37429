import type { McpServerState, McpServerView } from '../../../../shared/mcp';
import type { ToolAnnotations } from '../../../../shared/tool';

export type Tone = 'good' | 'busy' | 'bad' | 'off' | 'warn';

/** A server's state as a word and a colour; a disabled server reads "Disabled" whatever its process does. */
export function statusOf(server: Pick<McpServerView, 'enabled' | 'status'>): { label: string; tone: Tone } {
  if (!server.enabled) return { label: 'Disabled', tone: 'off' };
  const labels: Record<McpServerState, { label: string; tone: Tone }> = {
    ready: { label: 'Running', tone: 'good' },
    starting: { label: 'Starting…', tone: 'busy' },
    restarting: { label: 'Restarting…', tone: 'busy' },
    error: { label: 'Error', tone: 'bad' },
    stopped: { label: 'Stopped', tone: 'off' },
    'needs-sign-in': { label: 'Needs sign-in', tone: 'warn' },
    'needs-acceptance': { label: 'Waiting for you to accept', tone: 'warn' },
  };
  return labels[server.status.state];
}

/** What runs: `Bundled · @modelcontextprotocol/server-filesystem /home/me`, `node server.js --flag`, or the URL. */
export function summaryOf(server: Pick<McpServerView, 'kind' | 'package' | 'command' | 'args' | 'url'>): string {
  if (server.kind === 'http') return server.url ?? '';
  const args = (server.args ?? []).map(quoteArgument).join(' ');
  if (server.package) return `Bundled · ${server.package}${args ? ` ${args}` : ''}`;
  return `${server.command ?? ''}${args ? ` ${args}` : ''}`;
}

function quoteArgument(argument: string): string {
  return /^[\w./:=@+-]+$/.test(argument) ? argument : JSON.stringify(argument);
}

export interface AnnotationBadge {
  label: string;
  tone: 'info' | 'warn' | 'danger';
  /** What the hint means, for a tooltip. */
  title: string;
}

/** The badges for a tool's annotations, riskiest first; "declared by the server" is added by the caller when not trusted. */
export function annotationBadges(annotations: ToolAnnotations | undefined): AnnotationBadge[] {
  if (!annotations) return [];
  const badges: AnnotationBadge[] = [];
  if (annotations.readOnlyHint === true) {
    badges.push({ label: 'Read-only', tone: 'info', title: 'Does not change anything (readOnlyHint)' });
  } else {
    if (annotations.destructiveHint === true)
      badges.push({ label: 'Destructive', tone: 'danger', title: 'May delete or overwrite data (destructiveHint)' });
    if (annotations.destructiveHint === false)
      badges.push({ label: 'Additive', tone: 'info', title: 'Changes things but only adds (destructiveHint: false)' });
    if (annotations.idempotentHint === true)
      badges.push({
        label: 'Idempotent',
        tone: 'info',
        title: 'Calling it again has no further effect (idempotentHint)',
      });
  }
  if (annotations.openWorldHint === true)
    badges.push({ label: 'Open world', tone: 'warn', title: 'Reaches outside this machine (openWorldHint)' });
  return badges;
}

/** `KEY=value` lines to a map; blank lines are skipped; a line without `=` is a problem naming its number. */
export function parseKeyValueLines(text: string): { values: Record<string, string>; problem?: string } {
  const values: Record<string, string> = {};
  const lines = text.split(/\r?\n/);
  for (const [index, raw] of lines.entries()) {
    const line = raw.trim();
    if (!line) continue;
    const at = line.indexOf('=');
    if (at <= 0) return { values, problem: `Line ${index + 1} must read NAME=value.` };
    values[line.slice(0, at).trim()] = line.slice(at + 1);
  }
  return { values };
}

/** Arguments one per line (so paths with spaces need no quoting); blank lines are skipped. */
export function parseArgumentLines(text: string): string[] {
  return text
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line.length > 0);
}
