/**
 * Text proposed for a chat's message box (an MCP Apps view's `ui/message`, docs/user/mcp-apps.md#what-a-view-may-ask):
 * it lands in the box, never sent; the person reads it and sends it, or not.
 */
const EVENT = 'workbench:propose-message';

interface Proposal {
  chatId: string;
  text: string;
}

export function proposeMessage(chatId: string, text: string): void {
  window.dispatchEvent(new CustomEvent<Proposal>(EVENT, { detail: { chatId, text } }));
}

/** Listens for proposals to this chat; returns the removal. */
export function onProposedMessage(chatId: string, listener: (text: string) => void): () => void {
  const handle = (event: Event): void => {
    const detail = (event as CustomEvent<Proposal>).detail;
    if (detail.chatId === chatId) listener(detail.text);
  };
  window.addEventListener(EVENT, handle);
  return () => window.removeEventListener(EVENT, handle);
}
