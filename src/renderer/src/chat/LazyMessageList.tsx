import { lazy, Suspense } from 'react';
import type * as MessageListModule from './MessageList';
import type { MessageListProps } from './MessageList';

// The list of a chat's exchanges (with react-virtuoso and the rows' code, ~80 KB) is not part of the first screen,
// whose chat is often new: it loads when a chat with exchanges is shown, or just after the first paint
// (preloadMessageList), while the chat's messages load (docs/dev/benchmarks.md, app-start).
let loaded: typeof MessageListModule | undefined;
const loadMessageList = (): Promise<typeof MessageListModule> =>
  import('./MessageList').then((module) => {
    loaded = module;
    return module;
  });
const MessageList = lazy(() => loadMessageList().then((module) => ({ default: module.MessageList })));

export function preloadMessageList(): void {
  void loadMessageList();
}

export function LazyMessageList(props: MessageListProps): React.JSX.Element {
  // Once loaded, rendered as is: through `lazy` it would suspend for a moment, and React holds back the content
  // that replaces a fallback for up to 300 ms (a long chat opened in ~450 ms instead of ~100).
  if (loaded) return <loaded.MessageList {...props} />;
  return (
    <Suspense fallback={<div className="pane-center muted">Loading…</div>}>
      <MessageList {...props} />
    </Suspense>
  );
}
