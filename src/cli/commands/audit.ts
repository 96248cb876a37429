import fs from 'node:fs';
import path from 'node:path';
import { Option, type Command } from 'commander';
import type { AuditEntry, AuditProgress } from '../../shared/audit';
import { AUDIT_ACTORS, AUDIT_DECISIONS, AUDIT_KINDS, CALL_REQUESTERS, isOneOf } from '../../shared/closed-sets';
import { act, integer, leaf, resolveChatId, type CommandContext, type ProgramOptions } from '../command-kit';
import { CliError, EXIT } from '../exit-codes';
import { table } from '../terminal';
import { auditStatsCommand } from './audit-stats';

/** `workbench audit …`: the audit page of the app. */
export function auditCommand(program: Command, options: ProgramOptions): void {
  const audit = program.command('audit').description('query, export and verify the audit log');
  auditStatsCommand(audit, options);

  act(
    leaf(audit, 'query', 'rows of the audit log, newest first')
      .option('--from <time>', 'from this ISO 8601 time (inclusive)')
      .option('--to <time>', 'before this ISO 8601 time')
      .option('--chat <id>', 'one chat')
      .option('--server <name>', 'one server')
      .option('--tool <name>', 'one tool')
      .option('--decision <decision...>', `one or more of ${AUDIT_DECISIONS.join(', ')}`)
      .addOption(new Option('--actor <actor>', 'who decided').choices(AUDIT_ACTORS))
      .addOption(
        new Option(
          '--kind <kind>',
          'decision, result, sampling, elicitation, policy or task rows (policy: changes of the approval policy)',
        ).choices(AUDIT_KINDS),
      )
      .addOption(
        new Option(
          '--requested-by <who>',
          "rows of what the model asked for, what an MCP App's view asked for, or a server's own requests (sampling, elicitation)",
        ).choices(CALL_REQUESTERS),
      )
      .option('--limit <n>', 'rows per page (at most 500)', integer('--limit', 1, 500))
      .option('--cursor <cursor>', 'the next page: the cursor the previous page printed'),
    options,
    async (
      context,
      flags: {
        from?: string;
        to?: string;
        chat?: string;
        server?: string;
        tool?: string;
        decision?: string[];
        actor?: 'user';
        kind?: 'decision' | 'result' | 'policy' | 'task';
        requestedBy?: (typeof CALL_REQUESTERS)[number];
        limit?: number;
        cursor?: string;
      },
    ) => {
      for (const decision of flags.decision ?? []) {
        if (!isOneOf(AUDIT_DECISIONS, decision))
          throw new CliError(
            `--decision must be one of ${AUDIT_DECISIONS.join(', ')}, not ${JSON.stringify(decision)}.`,
          );
      }
      for (const [flag, value] of [
        ['--from', flags.from],
        ['--to', flags.to],
      ] as const) {
        if (value !== undefined && Number.isNaN(Date.parse(value)))
          throw new CliError(`${flag} takes an ISO 8601 time like 2026-01-31T09:00:00Z, not ${JSON.stringify(value)}.`);
      }
      const iso = (value: string | undefined): string | undefined =>
        value === undefined ? undefined : new Date(value).toISOString();
      const chatId = flags.chat === undefined ? undefined : await resolveChatIdOrRaw(context, flags.chat);
      const page = await context.session().call('audit.query', {
        ...(flags.from ? { from: iso(flags.from) } : {}),
        ...(flags.to ? { to: iso(flags.to) } : {}),
        ...(chatId ? { chatId } : {}),
        ...(flags.server ? { serverName: flags.server } : {}),
        ...(flags.tool ? { toolName: flags.tool } : {}),
        ...(flags.decision ? { decision: flags.decision as AuditEntry['decision'][] as never } : {}),
        ...(flags.actor ? { actor: flags.actor } : {}),
        ...(flags.kind ? { kind: flags.kind } : {}),
        ...(flags.requestedBy ? { requestedBy: flags.requestedBy } : {}),
        ...(flags.limit ? { limit: flags.limit } : {}),
        ...(flags.cursor ? { cursor: flags.cursor } : {}),
      });
      if (context.json) return context.terminal.json(page);
      const { colors } = context.terminal;
      if (page.entries.length === 0) return context.terminal.line('No rows match.');
      context.terminal.line(
        table([
          ['#', 'TIME', 'KIND', 'SERVER.TOOL', 'WHAT', 'BY', 'WHY'].map((cell) => colors.bold(cell)),
          ...page.entries.map((entry) => [
            String(entry.sequence),
            entry.time,
            entry.kind,
            entry.serverName === '' && entry.toolName === '' ? '' : `${entry.serverName}.${entry.toolName}`,
            whatOf(entry),
            entry.actor ?? '',
            entry.kind === 'result'
              ? (entry.error ?? '')
              : `${entry.decidedBy ?? ''}${entry.reason ? ` — "${entry.reason}"` : ''}`,
          ]),
        ]),
      );
      if (page.nextCursor) context.terminal.note(colors.dim(`More rows: add --cursor ${page.nextCursor}`));
    },
  );

  act(
    leaf(audit, 'export', 'write the whole log to a file, with a header that anchors its chain head')
      .addOption(
        new Option('--format <format>', 'csv or jsonl (JSONL is the form to verify)')
          .choices(['csv', 'jsonl'])
          .makeOptionMandatory(),
      )
      .requiredOption('--out <file>', 'the file to write (outside the data folder; ends in .csv or .jsonl)')
      .option('--overwrite', 'replace the file if it exists'),
    options,
    async (context, flags: { format: 'csv' | 'jsonl'; out: string; overwrite?: boolean }) => {
      const stopProgress = progressOnStderr(context, 'export', 'Exporting');
      try {
        // Not the contract's audit.export, which writes only into the data folder's exports/: the person named
        // this file on their own command line, so the log's own export writes it (export-folder.ts).
        const { services } = context.session();
        const result = await services.audit.export({
          format: flags.format,
          path: path.resolve(flags.out),
          overwrite: flags.overwrite === true,
          onProgress: (done, total) =>
            services.events.emit('audit.onDidProgress', { operation: 'export', done, total }),
        });
        stopProgress();
        if (context.json) return context.terminal.json(result);
        context.terminal.line(
          `Exported ${result.rowCount} rows to ${result.path} (head #${result.head.sequence} ${result.head.hash}).`,
        );
      } finally {
        stopProgress();
      }
    },
  );

  act(
    leaf(audit, 'verify', 'recompute the hash chain and name the first broken row (exit code 3 when broken)')
      .option(
        '--anchor-sequence <n>',
        "an earlier export's head sequence, to check that row is still there unchanged",
        integer('--anchor-sequence', 1, Number.MAX_SAFE_INTEGER),
      )
      .option('--anchor-hash <hash>', "that export's head hash")
      .option(
        '--against <file>',
        'also check the log against the rows a collector received (JSONL, or an rsyslog file of raw messages)',
      )
      .option(
        '--public-key <file>',
        "check signed checkpoints against this Ed25519 public key (PEM; `workbench audit checkpoint-key` prints the log's)",
      ),
    options,
    async (context, flags: { anchorSequence?: number; anchorHash?: string; against?: string; publicKey?: string }) => {
      const checkpointPublicKey =
        flags.publicKey === undefined ? undefined : readPublicKey(path.resolve(flags.publicKey));
      if ((flags.anchorSequence === undefined) !== (flags.anchorHash === undefined))
        throw new CliError('--anchor-sequence and --anchor-hash go together.');
      if (flags.against !== undefined) {
        if (flags.anchorSequence !== undefined)
          throw new CliError(
            '--against checks against a whole file of shipped rows; use it without --anchor-sequence.',
          );
        return verifyAgainst(context, path.resolve(flags.against), checkpointPublicKey);
      }
      const stopProgress = progressOnStderr(context, 'verify', 'Verifying');
      let result;
      try {
        result = await context.session().call('audit.verify', {
          ...(flags.anchorSequence === undefined
            ? {}
            : { anchor: { sequence: flags.anchorSequence, hash: flags.anchorHash as string } }),
          ...(checkpointPublicKey === undefined ? {} : { checkpointPublicKey }),
        });
      } finally {
        stopProgress();
      }
      const { colors } = context.terminal;
      if (context.json) context.terminal.json(result);
      else if (result.ok)
        context.terminal.line(
          `${colors.green('OK')}: ${result.rowCount} rows verify; head #${result.head.sequence} ${result.head.hash}`,
        );
      else
        context.terminal.line(
          `${colors.red('BROKEN')} at row #${result.problem.sequence} (${result.problem.kind}): ${result.problem.message} ${result.rowCount} rows verified before it.`,
        );
      if (!context.json) {
        for (const notice of result.notices ?? [])
          context.terminal.line(`${colors.yellow('WARNING')}: ${notice.message}`);
        // What a check of the log against itself cannot see (docs/user/audit-log.md).
        if (flags.anchorSequence === undefined) {
          context.terminal.note(
            colors.dim(
              'Checked against the log itself: a log rewritten whole (rows, head and count) verifies too; only an anchor kept elsewhere catches that (--anchor-sequence/--anchor-hash from an exported file).',
            ),
          );
        }
      }
      return result.ok ? EXIT.ok : EXIT.verifyFailed;
    },
  );

  act(
    leaf(audit, 'checkpoint-key', "print the public key of the log's signed checkpoints (PEM), for the verifiers"),
    options,
    async (context) => {
      const view = await context.session().call('audit.checkpoints', undefined);
      if (context.json) context.terminal.json(view);
      else if (view.publicKeyPem === null)
        throw new CliError(
          'This log has no checkpoint key yet: turn signed checkpoints on (Settings → Audit shipping) first.',
        );
      else context.terminal.line(view.publicKeyPem.trimEnd());
      return EXIT.ok;
    },
  );

  shippingCommand(audit, options);
}

function readPublicKey(file: string): string {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch (error) {
    throw new CliError(`Cannot read the public key ${file}: ${error instanceof Error ? error.message : String(error)}`);
  }
}

async function verifyAgainst(context: CommandContext, file: string, checkpointPublicKey?: string): Promise<number> {
  const stopProgress = progressOnStderr(context, 'verify', 'Verifying');
  let result;
  try {
    result = await context.session().call('audit.verifyAgainst', {
      path: file,
      ...(checkpointPublicKey === undefined ? {} : { checkpointPublicKey }),
    });
  } finally {
    stopProgress();
  }
  const { colors } = context.terminal;
  const { received } = result;
  if (context.json) context.terminal.json(result);
  else {
    if (result.ok) {
      context.terminal.line(
        `${colors.green('OK')}: ${result.rowCount} rows verify; every one of the ${received.rows} rows the collector holds (up to #${received.lastSequence}) is in the log unchanged; head #${result.head.sequence} ${result.head.hash}`,
      );
    } else {
      context.terminal.line(
        `${colors.red('BROKEN')} at row #${result.problem.sequence} (${result.problem.kind}): ${result.problem.message}.`,
      );
    }
    const notes = [
      received.duplicates > 0 ? `${received.duplicates} rows received more than once (at-least-once delivery)` : '',
      received.notReceived > 0
        ? `${received.notReceived} rows up to #${received.lastSequence} never reached the collector`
        : '',
      received.cutOff > 0 ? `${received.cutOff} messages cut off in transit` : '',
      received.otherLines > 0 ? `${received.otherLines} lines that are not audit rows were skipped` : '',
    ].filter((note) => note !== '');
    if (notes.length > 0) context.terminal.note(colors.dim(`The collector's file: ${notes.join('; ')}.`));
  }
  return result.ok ? EXIT.ok : EXIT.verifyFailed;
}

/** `workbench audit shipping …`: where the audit log is shipped, and how far each sink has got. */
function shippingCommand(audit: Command, options: ProgramOptions): void {
  const shipping = audit
    .command('shipping')
    .description('the audit log shipped to syslog or OpenTelemetry (the auditShipping settings)');
  act(leaf(shipping, 'status', "each sink's lag (rows and time) and last error"), options, async (context) => {
    const status = await context.session().call('audit.shippingStatus', undefined);
    if (context.json) return context.terminal.json(status);
    const { colors } = context.terminal;
    if (status.sinks.length === 0)
      return context.terminal.line('No audit sinks are configured (the auditShipping section of the settings).');
    context.terminal.line(
      table([
        ['SINK', 'TYPE', 'STATE', 'ACKNOWLEDGED', 'LAG', 'LAST ERROR'].map((cell) => colors.bold(cell)),
        ...status.sinks.map((sink) => [
          sink.origin === 'managed' ? `${sink.id} (set by your organisation)` : sink.id,
          sink.type,
          sink.enabled
            ? sink.lastError
              ? colors.red('failing')
              : sink.lagRows === 0
                ? colors.green('up to date')
                : 'shipping'
            : colors.dim('disabled'),
          `#${sink.acknowledgedSequence} of #${sink.headSequence}${sink.acknowledgedAt ? ` at ${sink.acknowledgedAt}` : ''}`,
          `${sink.lagRows} rows, ${formatSeconds(sink.lagSeconds)}`,
          sink.lastError ? `${sink.lastErrorAt ?? ''} ${sink.lastError}` : '',
        ]),
      ]),
    );
  });
}

/** The WHAT column: the decision, the result, or for a policy row what changed (its keys). */
function whatOf(entry: AuditEntry): string {
  if (entry.kind === 'decision') return entry.decision ?? '';
  // A task row (docs/user/audit-log.md#task-rows): the task's status then.
  if (entry.kind === 'task') return `task ${(entry.args as { status?: string } | null)?.status ?? ''}`;
  if (entry.kind === 'result')
    return `${entry.outcome ?? ''}${entry.durationMs === null ? '' : ` ${Math.round(entry.durationMs)} ms`}`;
  const keys = entry.editedArgs !== null && typeof entry.editedArgs === 'object' ? Object.keys(entry.editedArgs) : [];
  return `changed ${keys.slice(0, 3).join(', ')}${keys.length > 3 ? ', …' : ''}`;
}

function formatSeconds(seconds: number): string {
  if (seconds < 120) return `${Math.round(seconds)} s`;
  if (seconds < 7200) return `${Math.round(seconds / 60)} min`;
  return `${(seconds / 3600).toFixed(1)} h`;
}

/** Audit rows keep the ids of deleted chats: an id that no chat has any more is still a fine filter. */
async function resolveChatIdOrRaw(context: CommandContext, given: string): Promise<string> {
  try {
    return await resolveChatId(context, given);
  } catch {
    return given;
  }
}

/** "Exporting… 40% (4,000 of 10,000 rows)" on stderr, rewritten in place on a terminal, a line at a time otherwise. */
function progressOnStderr(context: CommandContext, operation: AuditProgress['operation'], verb: string): () => void {
  const { err } = context.terminal;
  const tty = err.isTTY;
  let last = -1;
  let shown = false;
  const unsubscribe = context.session().services.events.subscribe((event, payload) => {
    if (event !== 'audit.onDidProgress') return;
    const progress = payload as AuditProgress;
    if (progress.operation !== operation || progress.total === 0) return;
    const percent = Math.floor((progress.done / progress.total) * 100);
    if (percent === last || (!tty && percent - last < 10 && percent !== 100)) return;
    last = percent;
    shown = true;
    // Rewriting the line in place is the CLI's own control sequence: it goes to the stream, not through the sink.
    if (tty) err.stream.write('\r\u001b[2K');
    err.write(
      `${verb}… ${percent}% (${progress.done.toLocaleString('en')} of ${progress.total.toLocaleString('en')} rows)${tty ? '' : '\n'}`,
    );
  });
  let stopped = false;
  return () => {
    if (stopped) return;
    stopped = true;
    unsubscribe();
    if (shown && tty) err.write('\n');
  };
}
