import { useEffect, useState } from 'react';
import type * as MessageListModule from './MessageList';
import type { MessageListProps } from './MessageList';

// The list of a chat's exchanges (with react-virtuoso and the rows' code, ~80 KB) is not part of the first screen,
// whose chat is often new: it loads when a chat with exchanges is shown, or just after the first paint
// (preloadMessageList), while the chat's messages load (docs/dev/benchmarks.md, app-start).
let loaded: typeof MessageListModule | undefined;
let loading: Promise<typeof MessageListModule> | undefined;
const loadMessageList = (): Promise<typeof MessageListModule> => {
  loading ??= import('./MessageList').then(
    (module) => (loaded = module),
    (error: unknown) => {
      loading = undefined;
      throw error;
    },
  );
  return loading;
};

export function preloadMessageList(): void {
  loadMessageList().catch(() => undefined);
}

/**
 * Not `React.lazy` with Suspense: a lazy component suspends for a moment even when its module is there, and React
 * holds back the content that replaces a fallback for up to 300 ms (a long chat opened in ~450 ms instead of ~100).
 * Once loaded, the list is rendered as is, and never mounted again because of how it was loaded.
 */
export function LazyMessageList(props: MessageListProps): React.JSX.Element {
  const [module, setModule] = useState(loaded);
  const [failure, setFailure] = useState<string | null>(null);
  useEffect(() => {
    if (module) return;
    let live = true;
    loadMessageList().then(
      (ready) => live && setModule(ready),
      (error: unknown) => live && setFailure(error instanceof Error ? error.message : String(error)),
    );
    return () => {
      live = false;
    };
  }, [module]);
  if (module) return <module.MessageList {...props} />;
  return (
    <div className="pane-center muted">
      {failure ? `Could not load the messages: ${failure}. Reload to try again.` : 'Loading…'}
    </div>
  );
}
