import type { ChatApprovalMode, ChatGrant } from '../../shared/approval';
import type { Database } from '../storage/database';

interface GrantRow {
  chat_id: string;
  server_name: string;
  tool_name: string;
  definition_hash: string;
  granted_at: number;
}

const toGrant = (row: GrantRow): ChatGrant => ({
  chatId: row.chat_id,
  serverName: row.server_name,
  toolName: row.tool_name,
  definitionHash: row.definition_hash,
  grantedAt: row.granted_at,
});

/**
 * SQL for what approvals keep per chat: its mode and its "Allow for this chat" grants. Every query is
 * by chat id, so one chat never reads another's grants; rows go with their chat (ON DELETE CASCADE).
 */
export interface ChatApprovalStore {
  mode(chatId: string): ChatApprovalMode;
  setMode(chatId: string, mode: ChatApprovalMode): void;
  /** Replaces an earlier grant of the same tool in the same chat (a new definition hash). */
  grant(grant: ChatGrant): void;
  grantsOf(chatId: string): ChatGrant[];
  /** Every chat's grants, for the settings page. */
  allGrants(): ChatGrant[];
  /** The removed grant, or undefined when there was none. */
  revoke(chatId: string, serverName: string, toolName: string): ChatGrant | undefined;
  /** A server's grants follow its rename (docs/user/approvals.md, "A server's identity"); grants left under the new name go. */
  renameServer(from: string, to: string): ChatGrant[];
  /** Every chat's grants of a server, gone with it; returns them. */
  dropServer(serverName: string): ChatGrant[];
}

export function createChatApprovalStore(db: Database): ChatApprovalStore {
  const getMode = db.prepare<[string], { mode: ChatApprovalMode }>(
    'SELECT mode FROM chat_approval_modes WHERE chat_id = ?',
  );
  const putMode = db.prepare<[string, string]>(
    'INSERT INTO chat_approval_modes (chat_id, mode) VALUES (?, ?) ON CONFLICT (chat_id) DO UPDATE SET mode = excluded.mode',
  );
  const clearMode = db.prepare<[string]>('DELETE FROM chat_approval_modes WHERE chat_id = ?');
  const putGrant = db.prepare<[string, string, string, string, number]>(
    `INSERT INTO approval_grants (chat_id, server_name, tool_name, definition_hash, granted_at) VALUES (?, ?, ?, ?, ?)
     ON CONFLICT (chat_id, server_name, tool_name) DO UPDATE SET definition_hash = excluded.definition_hash, granted_at = excluded.granted_at`,
  );
  const grantsOf = db.prepare<[string], GrantRow>(
    'SELECT * FROM approval_grants WHERE chat_id = ? ORDER BY granted_at, server_name, tool_name',
  );
  const allGrants = db.prepare<[], GrantRow>(
    'SELECT * FROM approval_grants ORDER BY chat_id, granted_at, server_name, tool_name',
  );
  const removeGrant = db.prepare<[string, string, string], GrantRow>(
    'DELETE FROM approval_grants WHERE chat_id = ? AND server_name = ? AND tool_name = ? RETURNING *',
  );
  const dropServer = db.prepare<[string], GrantRow>('DELETE FROM approval_grants WHERE server_name = ? RETURNING *');
  const renameServer = db.prepare<[string, string], GrantRow>(
    'UPDATE approval_grants SET server_name = ? WHERE server_name = ? RETURNING *',
  );
  return {
    renameServer: db.transaction((from: string, to: string): ChatGrant[] => {
      if (from === to) return [];
      // No server is named `to` (a rename to a taken name is refused): what it holds was left by another and goes.
      dropServer.all(to);
      return renameServer.all(to, from).map(toGrant);
    }),
    dropServer: (serverName) => dropServer.all(serverName).map(toGrant),
    mode: (chatId) => getMode.get(chatId)?.mode ?? 'use-tool-settings',
    setMode(chatId, mode) {
      if (mode === 'use-tool-settings') clearMode.run(chatId);
      else putMode.run(chatId, mode);
    },
    grant: (grant) =>
      void putGrant.run(grant.chatId, grant.serverName, grant.toolName, grant.definitionHash, grant.grantedAt),
    grantsOf: (chatId) => grantsOf.all(chatId).map(toGrant),
    allGrants: () => allGrants.all().map(toGrant),
    revoke(chatId, serverName, toolName) {
      const row = removeGrant.get(chatId, serverName, toolName);
      return row && toGrant(row);
    },
  };
}
