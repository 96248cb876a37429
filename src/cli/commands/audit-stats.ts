import { Option, type Command } from 'commander';
import { serverLabel, type AuditStats, type DecisionCounts } from '../../shared/audit-stats';
import { INSIGHT_CALL_KINDS } from '../../shared/closed-sets';
import { act, leaf, type ProgramOptions } from '../command-kit';
import { CliError } from '../exit-codes';
import { table, type Colors } from '../terminal';

/**
 * `workbench audit stats`: the Insights page's figures as a table (docs/user/insights.md, docs/user/cli.md), through
 * the same `audit.stats` the page calls. A sparkline of the decisions over time where the terminal can show it.
 */
export function auditStatsCommand(audit: Command, options: ProgramOptions): void {
  act(
    leaf(audit, 'stats', 'what was asked and decided over a period: by decision, tool, server or rule')
      .option('--since <period>', 'how far back: 7d, 24h, 30d (days or hours)', '7d')
      .addOption(
        new Option('--by <what>', 'one table: decisions, tools, servers or the rules and settings that decided')
          .choices(['decision', 'tool', 'server', 'rule'])
          .default('decision'),
      )
      .option('--server <name>', 'one server')
      .option('--tool <name>', 'one tool')
      .addOption(
        new Option(
          '--kind <kind>',
          "the model's tool calls, sampling or elicitation requests, or the calls of an MCP App's view",
        ).choices(INSIGHT_CALL_KINDS),
      ),
    options,
    async (
      context,
      flags: {
        since: string;
        by: 'decision' | 'tool' | 'server' | 'rule';
        server?: string;
        tool?: string;
        kind?: (typeof INSIGHT_CALL_KINDS)[number];
      },
    ) => {
      const period = parseSince(flags.since);
      const to = Date.now();
      const stats = await context.session().call('audit.stats', {
        from: new Date(to - period.ms).toISOString(),
        to: new Date(to + 1).toISOString(),
        bucket: period.hours ? 'hour' : 'day',
        utcOffsetMinutes: -new Date().getTimezoneOffset(),
        ...(flags.server ? { serverName: flags.server } : {}),
        ...(flags.tool ? { toolName: flags.tool } : {}),
        ...(flags.kind ? { kind: flags.kind } : {}),
      });
      if (context.json) return context.terminal.json(stats);
      const { colors } = context.terminal;
      context.terminal.line(
        `${colors.bold(`Decisions since ${flags.since}`)}: ${stats.totals.total} (${stats.totals.asked} asked, ${stats.totals.allowedByPolicy} allowed without asking)`,
      );
      if (sparklineSupported(context.terminal.out.isTTY, process.env)) {
        context.terminal.line(
          `${colors.dim('asked per ' + stats.bucket + ':')} ${sparkline(stats.timeline.map((bucket) => bucket.asked))}`,
        );
      }
      context.terminal.line(statsTable(stats, flags.by, colors));
    },
  );
}

/** `7d` → 7 days, `24h` → 24 hours. */
export function parseSince(text: string): { ms: number; hours: boolean } {
  const match = /^([1-9][0-9]{0,3})([dh])$/.exec(text.trim());
  if (!match) throw new CliError(`--since takes days or hours like 7d or 24h, not ${JSON.stringify(text)}.`);
  const count = Number(match[1]);
  const hours = match[2] === 'h';
  if (hours && count > 24 * 31) throw new CliError('--since in hours reaches back at most 744h (31 days); use days.');
  if (!hours && count > 400) throw new CliError('--since reaches back at most 400d.');
  return { ms: count * (hours ? 3_600_000 : 86_400_000), hours };
}

const COUNT_COLUMNS: readonly [keyof DecisionCounts, string][] = [
  ['asked', 'ASKED'],
  ['allowedByYou', 'ALLOWED BY YOU'],
  ['allowedByPolicy', 'ALLOWED BY RULE/SETTING'],
  ['deniedByYou', 'DENIED BY YOU'],
  ['deniedByPolicy', 'DENIED BY RULE'],
  ['timedOut', 'TIMED OUT'],
  ['cancelled', 'CANCELLED'],
];

export function statsTable(stats: AuditStats, by: 'decision' | 'tool' | 'server' | 'rule', colors: Colors): string {
  const header = (cells: string[]): string[] => cells.map((cell) => colors.bold(cell));
  const counts = (row: DecisionCounts): string[] => COUNT_COLUMNS.map(([name]) => String(row[name]));
  switch (by) {
    case 'decision':
      return table([
        header(['DAY', ...COUNT_COLUMNS.map(([, title]) => title)]),
        ...stats.timeline.map((bucket) => [bucket.label, ...counts(bucket)]),
        [colors.bold('TOTAL'), ...counts(stats.totals)],
      ]);
    case 'tool':
      if (stats.tools.length === 0) return 'No decisions in the period.';
      return table([
        header(['SERVER.TOOL', ...COUNT_COLUMNS.map(([, title]) => title)]),
        ...stats.tools.map((tool) => [`${serverLabel(tool)}.${tool.toolName}`, ...counts(tool)]),
      ]);
    case 'server':
      if (stats.servers.length === 0) return 'No decisions in the period.';
      return table([
        header(['SERVER', ...COUNT_COLUMNS.map(([, title]) => title)]),
        ...stats.servers.map((server) => [serverLabel(server), ...counts(server)]),
      ]);
    case 'rule': {
      const deciders = table([
        header(['DECIDED BY', 'KIND', 'ALLOWED', 'DENIED']),
        ...stats.deciders.map((decider) => [
          decider.label,
          decider.kind,
          String(decider.allowed),
          String(decider.denied),
        ]),
      ]);
      const rules =
        stats.rules.length === 0
          ? 'No rules in the policy.'
          : table([
              header(['RULE', 'EFFECT', 'DECIDED', '']),
              ...stats.rules.map((rule) => [
                `${rule.name}: ${rule.description}`,
                rule.effect,
                String(rule.decided),
                rule.decided === 0 && rule.effect !== 'ask' ? colors.yellow('never matched') : '',
              ]),
            ]);
      return `${stats.deciders.length === 0 ? 'Nothing ran or was stopped without asking.' : deciders}\n\n${rules}`;
    }
  }
}

const BARS = '▁▂▃▄▅▆▇█';

/** Block characters need a terminal that shows Unicode: a TTY, not `TERM=dumb`, a UTF-8 locale. */
export function sparklineSupported(isTTY: boolean, env: NodeJS.ProcessEnv): boolean {
  const locale = env.LC_ALL || env.LC_CTYPE || env.LANG || '';
  return isTTY && env.TERM !== 'dumb' && /utf-?8/i.test(locale);
}

export function sparkline(values: readonly number[]): string {
  const max = Math.max(0, ...values);
  return values
    .map((value) =>
      max === 0 ? BARS[0] : BARS[Math.min(BARS.length - 1, Math.round((value / max) * (BARS.length - 1)))],
    )
    .join('');
}
