import { useEffect, useState } from 'react';
import type { WorkbenchApi } from '../../../shared/api';
import type { ChatApprovalMode } from '../../../shared/approval';

/** A chat's approval mode as it changes (`approvals.onDidChange`, kind `chat-mode`); null until it is known. */
export function useChatMode(api: WorkbenchApi, chatId: string): ChatApprovalMode | null {
  const [mode, setMode] = useState<ChatApprovalMode | null>(null);
  useEffect(() => {
    let live = true;
    api.approvals.getChatMode({ chatId }).then(
      (result) => live && setMode(result.mode),
      () => {},
    );
    const off = api.approvals.onDidChange((change) => {
      if (change.kind === 'chat-mode' && change.chatId === chatId) setMode(change.mode);
    });
    return () => {
      live = false;
      off();
    };
  }, [api, chatId]);
  return mode;
}
