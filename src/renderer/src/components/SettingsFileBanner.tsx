import { useEffect, useState } from 'react';
import type { WorkbenchApi } from '../../../shared/api';

/**
 * settings.json was edited outside the app into something that cannot be used (docs/user/data.md, "Editing
 * settings.json"): says why while the last good settings stay in force, until a good save is read; a window
 * opened while the file is still unusable says so too.
 */
export function SettingsFileBanner({ api }: { api: WorkbenchApi }): React.JSX.Element | null {
  const [problem, setProblem] = useState<string | null>(null);
  useEffect(() => {
    let heard = false;
    const stop = api.settings.onDidReload((reload) => {
      heard = true;
      setProblem(reload.kind === 'invalid' ? reload.message : null);
    });
    // A window opened after the change was seen asks what is wrong now (an event heard meanwhile is newer).
    void api.settings.problem().then(
      ({ problem: now }) => {
        if (!heard) setProblem(now?.message ?? null);
      },
      () => undefined,
    );
    return stop;
  }, [api]);
  if (problem === null) return null;
  return (
    <div className="banner banner-error" role="alert">
      {problem}
    </div>
  );
}
