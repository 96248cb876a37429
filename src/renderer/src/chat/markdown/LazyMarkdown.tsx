import { lazy, Suspense } from 'react';
import type * as MarkdownModule from './Markdown';
import type { MarkdownProps } from './Markdown';

// The Markdown renderer and its parser (marked, ~50 KB) are not part of the first screen: they load as soon as the
// first reply is shown, or just after the first paint (preloadMarkdown); until then the reply shows as plain
// text. Keeps the first load under its goal (docs/dev/benchmarks.md, `renderer-first-load`).
const loadMarkdown = (): Promise<typeof MarkdownModule> => import('./Markdown');
const Markdown = lazy(() => loadMarkdown().then((module) => ({ default: module.Markdown })));

export function preloadMarkdown(): void {
  void loadMarkdown();
}

export function LazyMarkdown(props: MarkdownProps): React.JSX.Element {
  return (
    <Suspense
      fallback={
        <div className="markdown">
          <p className="markdown-plain">{props.text}</p>
        </div>
      }
    >
      <Markdown {...props} />
    </Suspense>
  );
}
