import type { ServerRequestView } from '../../../../shared/server-request-views';

/**
 * A request another running process holds — a `workbench chat`, another instance of the app — as the inbox shows it
 * (docs/user/approvals.md#one-inbox): which process, and what cannot be given from here. The answer goes through the
 * answers inbox to that process, which applies it as a click on its own card; "Allow for this chat", edits and opening
 * a page are given only where the request is held, where the person sees what they change.
 */
export function HeldElsewhereNote({ request }: { request: ServerRequestView }): React.JSX.Element | null {
  const held = request.heldElsewhere;
  if (!held) return null;
  const holder = <HolderName name={held.process} />;
  const withheld = withheldWords(request);
  return (
    <div className="held-elsewhere" data-testid="held-elsewhere">
      <p>
        Held by {holder} (pid {held.pid}). Your answer goes to it, and it applies it as if given there; the audit log
        says it came from the app.
      </p>
      {withheld && (
        <p className="muted" data-testid="held-elsewhere-withheld">
          {withheld}
        </p>
      )}
    </div>
  );
}

/** "workbench chat" as a command; the app's own names as words. */
export function HolderName({ name }: { name: string }): React.JSX.Element {
  return /^workbench( |$)/.test(name) ? <code>{name}</code> : <>{name}</>;
}

/** Why some answers are missing from the card of a request held elsewhere, or null when every answer is offered. */
export function withheldWords(request: ServerRequestView): string | null {
  switch (request.kind) {
    case 'sampling':
      return request.stage === 'request'
        ? '"Allow for this chat" and changes to the prompt are given only where it is held, where you see what they change: from here, allow it once or deny it.'
        : 'Changes to the answer are given only where it is held: from here, send it as the model wrote it or deny it.';
    case 'elicitation':
      return request.mode === 'url'
        ? 'The page is opened only where it is held, which shows its address before it opens: from here, decline or cancel it.'
        : null;
    case 'app-tool-call':
      return '"Allow for this chat" is given only where the view is shown: from here, allow it once or deny it.';
    case 'sandbox-widening':
      return null;
  }
}
