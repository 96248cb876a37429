import { z } from 'zod';

/**
 * Zod compiles fast object parsers with `new Function` unless told not to, and probes for that ability
 * when a schema is built. Our CSP forbids eval, so the probe alone raised a CSP violation on every
 * start. Imported first by every page's entry (renderer, preload), before any schema exists.
 */
z.config({ jitless: true });
