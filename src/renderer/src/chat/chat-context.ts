import { createContext, useContext } from 'react';
import type { WorkbenchApi } from '../../../shared/api';
import type { ChatStore } from './chat-store';

/** What every part of one chat tab needs: the contract, the tab's store, and which servers the person trusts. */
export interface ChatContextValue {
  api: WorkbenchApi;
  store: ChatStore;
  /** Servers marked trusted: their tool annotations are believed (the risk badge drops "declared by the server"). */
  trustedServers: ReadonlySet<string>;
}

export const ChatContext = createContext<ChatContextValue | null>(null);

export function useChatContext(): ChatContextValue {
  const value = useContext(ChatContext);
  if (!value) throw new Error('useChatContext outside a chat tab');
  return value;
}
