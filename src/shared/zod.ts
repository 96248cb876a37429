// eslint-disable-next-line no-restricted-imports -- the one module of src/shared that imports zod itself
import { z } from 'zod';

/**
 * The one `z` of src/shared (eslint refuses `zod` elsewhere in it). Zod compiles fast object parsers with
 * `new Function` unless told not to, and probes for that ability when a schema is built; a page's CSP forbids
 * eval, so in a page (the renderer, the preload: they have a `document`) the probe alone raised a CSP violation.
 * Configured here, in the module every schema module imports first, it holds in whichever chunk a page loads its
 * schemas from: the first screen loads none (docs/dev/benchmarks.md, app-start), the settings load theirs on
 * demand. Node keeps the compiled parsers: about twice as fast on a large result once warm.
 */
if ('document' in globalThis) z.config({ jitless: true });

export { z };
