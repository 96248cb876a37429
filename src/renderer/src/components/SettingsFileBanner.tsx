import { useEffect, useState } from 'react';
import type { WorkbenchApi } from '../../../shared/api';

/**
 * settings.json was edited outside the app into something that cannot be used (docs/user/data.md, "Editing
 * settings.json"): says why while the last good settings stay in force, until a good save is read.
 */
export function SettingsFileBanner({ api }: { api: WorkbenchApi }): React.JSX.Element | null {
  const [problem, setProblem] = useState<string | null>(null);
  useEffect(
    () => api.settings.onDidReload((reload) => setProblem(reload.kind === 'invalid' ? reload.message : null)),
    [api],
  );
  if (problem === null) return null;
  return (
    <div className="banner banner-error" role="alert">
      {problem}
    </div>
  );
}
