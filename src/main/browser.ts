/**
 * Browser mode's entry (docs/user/browser-mode.md): turns on Node's on-disk compile cache before anything else
 * loads, as bin/workbench.js does for the CLI, then starts browser mode (browser-mode.ts). A static import would be
 * compiled before this line ran; without the cache every start compiles the whole main bundle again (~20 ms of a
 * 150 ms start; docs/dev/benchmarks.md, app-start).
 */
import module from 'node:module';

module.enableCompileCache?.();
await import('./browser-mode');
