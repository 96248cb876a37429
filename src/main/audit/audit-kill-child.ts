/**
 * The child of the kill -9 test (audit-kill.test.ts), bundled by it into one file so it starts fast.
 * Loads everything, prints `ready`, waits for a line on stdin, then records audit rows in a loop and
 * prints each committed sequence number once `recordDecision` / `recordToolResult` has returned,
 * until it is killed.
 */
import { writeSync } from 'node:fs';
import { openDatabase } from '../storage/database';
import { createSqliteAuditLog } from './sqlite-audit-log';

const [databaseFile, dataDir, label] = process.argv.slice(2);
if (!databaseFile || !dataDir || !label) throw new Error('usage: audit-kill-child DATABASE_FILE DATA_DIR LABEL');

// Written with writeSync: the number is out of the process before the next row starts.
const say = (line: string): void => {
  writeSync(1, `${line}\n`);
};

say('ready');
process.stdin.once('data', () => {
  const db = openDatabase(databaseFile);
  const log = createSqliteAuditLog({ db, dataDir });
  for (let index = 0; ; index++) {
    const call = {
      chatId: `chat-${label}`,
      exchangeId: `exchange-${label}`,
      toolCallId: `call-${label}-${index}`,
      serverName: 'Files',
      toolName: 'write_file',
    };
    const entry =
      index % 2 === 0
        ? log.recordDecision({
            ...call,
            decision: 'allow_once',
            actor: 'user',
            decidedBy: 'you allowed it once',
            args: { path: `/tmp/${label}/${index}`, token: `t-${index}` },
          })
        : log.recordToolResult({ ...call, outcome: 'success', durationMs: index, resultBytes: index * 10 });
    say(`${entry.sequence} ${entry.toolCallId} ${entry.kind}`);
  }
});
