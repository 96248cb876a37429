// eslint-disable-next-line no-restricted-imports -- the one module of src/shared that imports zod itself
import { z } from 'zod';

/**
 * The one `z` of src/shared (eslint refuses `zod` elsewhere in it). Zod compiles fast object parsers with
 * `new Function` unless told not to, and probes for that ability when a schema is built; the pages' CSP forbids
 * eval, so the probe alone raised a CSP violation. Configured here, in the module every schema module imports
 * first, it holds in whichever chunk a page loads its schemas from: the first screen loads none
 * (docs/dev/benchmarks.md, app-start), the settings load theirs on demand.
 */
z.config({ jitless: true });

export { z };
