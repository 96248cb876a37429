import { useCallback, useEffect, useState } from 'react';
import type { WorkbenchApi } from '../../../../shared/api';
import type { ChatGrant } from '../../../../shared/approval';
import { Notice, errorText, formatTime } from '../common';

/** "Allow for this chat" grants, across all chats, each revocable. */
export function GrantsSection({ api }: { api: WorkbenchApi }): React.JSX.Element {
  const [grants, setGrants] = useState<ChatGrant[] | null>(null);
  const [titles, setTitles] = useState<Record<string, string>>({});
  const [error, setError] = useState<string | null>(null);

  const load = useCallback(
    () =>
      Promise.all([api.grants.list(), api.chat.list()]).then(
        ([list, chats]) => {
          setGrants(list.grants);
          setTitles(Object.fromEntries(chats.chats.map((chat) => [chat.id, chat.title])));
        },
        (failure: unknown) => setError(errorText(failure)),
      ),
    [api],
  );

  useEffect(() => {
    void load();
    return api.grants.onDidChange(() => void load());
  }, [api, load]);

  const revoke = async (grant: ChatGrant): Promise<void> => {
    setError(null);
    try {
      await api.grants.revoke({ chatId: grant.chatId, server: grant.serverName, tool: grant.toolName });
      await load();
    } catch (failure) {
      setError(errorText(failure));
    }
  };

  return (
    <section className="settings-section" aria-labelledby="grants-title">
      <h3 id="grants-title">Allowed for a chat</h3>
      <p className="muted small">
        Tools you allowed with “Allow for this chat”. A grant ends when you revoke it or when the tool’s definition
        changes.
      </p>
      {error && <Notice kind="error">{error}</Notice>}
      {grants?.length === 0 && <p className="muted">No chat has a grant.</p>}
      {grants && grants.length > 0 && (
        <table className="table" aria-label="Chat grants">
          <thead>
            <tr>
              <th scope="col">Chat</th>
              <th scope="col">Server · tool</th>
              <th scope="col">Allowed</th>
              <th scope="col">
                <span className="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {grants.map((grant) => (
              <tr key={`${grant.chatId}/${grant.serverName}/${grant.toolName}`}>
                <td>{titles[grant.chatId] ?? <span className="muted mono">{grant.chatId}</span>}</td>
                <td className="mono">
                  {grant.serverName} · {grant.toolName}
                </td>
                <td className="small">{formatTime(grant.grantedAt)}</td>
                <td className="align-end">
                  <button
                    type="button"
                    className="button button-small"
                    aria-label={`Revoke ${grant.toolName} in ${titles[grant.chatId] ?? grant.chatId}`}
                    onClick={() => void revoke(grant)}
                  >
                    Revoke
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
