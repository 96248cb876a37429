/**
 * `npm start`: builds what is stale, then runs the Electron app. Where no Electron binary is
 * installed (servers, CI, these development machines) it says so and starts browser mode.
 * `npm start -- --browser` always starts browser mode; other flags go to browser mode (--port N, --no-open).
 */
import { ensureBuilt, electronBinary, ROOT, run } from './lib/project.ts';

const args = process.argv.slice(2);
const forceBrowser = args.includes('--browser');
const browserArgs = args.filter((arg) => arg !== '--browser');

await ensureBuilt();

const electron = forceBrowser ? null : electronBinary();
if (electron) {
  const { code } = await run(electron, [ROOT], { env: { ...process.env, ELECTRON_RUN_AS_NODE: undefined } });
  process.exit(code);
}

if (!forceBrowser)
  console.log('No Electron binary is installed on this machine, so AI Workbench starts in browser mode.');
// Browser mode reads its flags from process.argv and runs in this process.
process.argv = [process.argv[0] ?? process.execPath, 'browser', ...browserArgs];
await import(new URL('../out/main/browser.js', import.meta.url).href);
