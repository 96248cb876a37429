import { createRequire } from 'node:module';
import type * as Ajv07Module from 'ajv';
import type { Options } from 'ajv';
import type AddFormats from 'ajv-formats';
import type * as Ajv2019Module from 'ajv/dist/2019.js';
import type * as Ajv2020Module from 'ajv/dist/2020.js';

/** The JSON Schema dialects MCP tool schemas come in (older drafts are read as draft-07). */
export type AjvDialect = 'draft-07' | '2019-09' | '2020-12';
export type AnyAjv = Ajv07Module.Ajv | Ajv2019Module.Ajv2019 | Ajv2020Module.Ajv2020;

const requireHere = createRequire(import.meta.url);

/**
 * A new Ajv for a dialect. Ajv (CommonJS, about 0.1 s of CPU to load) is required on the first call rather than
 * imported with the module, so that a start or a command that checks no schema never loads it
 * (docs/dev/benchmarks.md, cli-start). `require` returns the same module instance an `import` would.
 */
export function newAjv(dialect: AjvDialect, options: Options): AnyAjv {
  if (dialect === '2020-12') return new (requireHere('ajv/dist/2020.js') as typeof Ajv2020Module).Ajv2020(options);
  if (dialect === '2019-09') return new (requireHere('ajv/dist/2019.js') as typeof Ajv2019Module).Ajv2019(options);
  return new (requireHere('ajv') as typeof Ajv07Module).Ajv(options);
}

/** ajv-formats' plugin, required on first use like Ajv itself. */
export function addFormats(ajv: AnyAjv, formats: Parameters<typeof AddFormats>[1]): void {
  const plugin = requireHere('ajv-formats') as typeof AddFormats & { default?: typeof AddFormats };
  (plugin.default ?? plugin)(ajv as Ajv07Module.Ajv, formats);
}
