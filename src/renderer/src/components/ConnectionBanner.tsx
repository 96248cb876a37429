import type { ConnectionState } from '../bridge/browser-bridge';

const MESSAGES: Record<Exclude<ConnectionState, 'open'>, string> = {
  connecting: 'Connecting to AI Workbench…',
  reconnecting: 'Lost the connection to AI Workbench. Reconnecting… If you restarted it, open the new link it printed.',
  refused: 'AI Workbench refused this page’s key. Open the link printed in the terminal where you started it.',
};

export function ConnectionBanner({ state }: { state: ConnectionState }): React.JSX.Element | null {
  if (state === 'open') return null;
  return (
    <div className={`banner banner-${state === 'refused' ? 'error' : 'warning'}`} role="status">
      {MESSAGES[state]}
    </div>
  );
}
