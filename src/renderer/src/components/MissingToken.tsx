import { ShieldIcon } from './icons';

/** Browser mode opened without its per-launch key: explain where to find the link. */
export function MissingToken(): React.JSX.Element {
  return (
    <div className="pane-center full">
      <div className="welcome">
        <span className="welcome-mark">
          <ShieldIcon size={32} />
        </span>
        <h1>Open AI Workbench from its link</h1>
        <p className="muted">
          For your safety, this page needs the key that AI Workbench printed when it started. Open the link from the
          terminal line that reads “AI Workbench (browser mode) ready at …”.
        </p>
      </div>
    </div>
  );
}
