import path from 'node:path';
import type { Chat } from '../shared/chat';
import { createChatRepository } from '../main/chat/chat-repository';
import { resolveDataDir } from '../main/settings/data-dir';
import { DATABASE_FILE_NAME, DatabaseOpenError, openDatabase } from '../main/storage/database';
import { describeDataFolderRepair, secureDataFolder } from '../main/storage/owner-only';
import { CliError } from './exit-codes';
import { sanitizeForTerminal } from './terminal-text';

/**
 * The quick path of `workbench chats list`: the chats read through the core's own repository, straight from the
 * database, without starting the services (no SDKs, MCP client or contract schemas to load; see cli-start in
 * docs/dev/benchmarks.md). It only reads chat titles: nothing here runs a tool, asks, decides or is audited.
 * The data folder is secured and a damaged database refused exactly as `openSession` does.
 */
export interface ChatStore {
  /** Every chat, most recently used first. */
  listChats(): Chat[];
  close(): void;
}

export function openChatStore(): ChatStore {
  const dataDir = resolveDataDir();
  const repaired = describeDataFolderRepair(secureDataFolder(dataDir));
  if (repaired) process.stderr.write(`workbench: ${sanitizeForTerminal(repaired)}\n`);
  let db: ReturnType<typeof openDatabase>;
  try {
    db = openDatabase(path.join(dataDir, DATABASE_FILE_NAME));
  } catch (error) {
    if (error instanceof DatabaseOpenError) throw new CliError(`AI Workbench cannot start: ${error.message}`);
    throw error;
  }
  const repository = createChatRepository(db);
  return { listChats: () => repository.list(), close: () => db.close() };
}
