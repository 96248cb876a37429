/**
 * settings.json edited by hand while the app runs, for the trust invariant (docs/dev/testing.md, "The trust
 * invariant", check 9): the file is saved as an editor saves it (a new file renamed over the old one), and the change
 * reaches the services only through the live watch (settings/settings-watch.ts), as a person's save does.
 */
import fs from 'node:fs';
import { setTimeout as realDelay } from 'node:timers/promises';
import type { SettingsReload } from '../../../shared/app';
import type { Services } from '../../services';
import { SETTINGS_RELOAD_DEBOUNCE_MS } from '../../settings/settings-watch';

/** How long a save may take to be read again, in real time, before the step fails. */
const RELOAD_WAIT_MS = 10_000;

/**
 * Saves settings.json with `edit` applied to its `mcpServers` section and waits until the watch has read it again
 * (`advance` moves the run's clock, which may be a fake one, past the watch's quiet time). Throws when it was not read.
 */
export async function saveServersByHand(
  services: Services,
  advance: (ms: number) => Promise<void>,
  edit: (servers: Record<string, Record<string, unknown>>) => void,
): Promise<void> {
  const watch = services.settingsWatch;
  watch.start();
  const file = services.settings.file;
  const document = JSON.parse(fs.readFileSync(file, 'utf8')) as {
    mcpServers?: Record<string, Record<string, unknown>>;
  };
  edit((document.mcpServers ??= {}));
  let reloaded: SettingsReload | undefined;
  const unsubscribe = watch.onDidReload((reload) => (reloaded = reload));
  try {
    const saving = `${file}.by-hand`;
    fs.writeFileSync(saving, `${JSON.stringify(document, null, 2)}\n`);
    fs.renameSync(saving, file);
    for (let waited = 0; reloaded === undefined; waited += 10) {
      if (waited > RELOAD_WAIT_MS)
        throw new Error(`settings.json saved by hand was not read again within ${RELOAD_WAIT_MS} ms`);
      await realDelay(10);
      await advance(SETTINGS_RELOAD_DEBOUNCE_MS);
    }
  } finally {
    unsubscribe();
  }
  if (reloaded.kind !== 'reloaded' || !reloaded.sections.includes('mcpServers'))
    throw new Error(`settings.json saved by hand was not taken: ${JSON.stringify(reloaded)}`);
}
