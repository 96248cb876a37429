import type { ErrorObject, Options, ValidateFunction } from 'ajv';
import { newAjv, type AjvDialect, type AnyAjv } from '../ajv';

/** One reason the arguments do not fit the schema: where (a JSON pointer, '' for the whole object) and what. */
export interface ArgumentProblem {
  path: string;
  problem: string;
}

export type ArgumentsCheck =
  | { readonly ok: true }
  | { readonly ok: false; readonly problems: readonly ArgumentProblem[] }
  /** The tool's own schema cannot be compiled, so nothing can be checked against it. */
  | { readonly ok: false; readonly schemaError: string };

/**
 * Checks edited arguments against a tool's input schema. Schemas come from MCP servers, so a broken
 * one is reported, never thrown. Each schema is compiled once per definition hash.
 */
export interface ArgumentsValidator {
  check(definitionHash: string, inputSchema: Record<string, unknown>, args: Record<string, unknown>): ArgumentsCheck;
}

const OPTIONS: Options = {
  allErrors: true,
  // MCP servers write schemas with keywords and formats of their own; unknown ones are ignored, not fatal.
  strict: false,
  validateFormats: false,
  // Two tools may use the same $id; keep each compile to itself. Remote $refs are never fetched.
  addUsedSchema: false,
};

const COMPILED_LIMIT = 1_024;

export function createArgumentsValidator(): ArgumentsValidator {
  // One Ajv per dialect, made (and Ajv loaded) when the first schema of that dialect is checked.
  const instances = new Map<AjvDialect, AnyAjv>();
  const ajvFor = (dialect: AjvDialect): AnyAjv => {
    let ajv = instances.get(dialect);
    if (!ajv) instances.set(dialect, (ajv = newAjv(dialect, OPTIONS)));
    return ajv;
  };
  const compiled = new Map<string, ValidateFunction | string>();

  const compile = (inputSchema: Record<string, unknown>): ValidateFunction | string => {
    const dialect = typeof inputSchema.$schema === 'string' ? inputSchema.$schema : '';
    let ajv: AnyAjv | undefined;
    let schema = inputSchema;
    if (dialect.includes('2020-12')) ajv = ajvFor('2020-12');
    else if (dialect.includes('2019-09')) ajv = ajvFor('2019-09');
    else if (dialect !== '' && !dialect.includes('draft-07')) {
      // draft-04/06 and unknown dialects: checked as draft-07, which reads them the same for argument objects.
      const { $schema: _ignored, ...rest } = inputSchema;
      schema = rest;
    }
    try {
      return (ajv ?? ajvFor('draft-07')).compile(schema);
    } catch (error) {
      return (error as Error).message;
    }
  };

  return {
    check(definitionHash, inputSchema, args) {
      let validate = compiled.get(definitionHash);
      if (validate === undefined) {
        if (compiled.size >= COMPILED_LIMIT) compiled.clear();
        validate = compile(inputSchema);
        compiled.set(definitionHash, validate);
      }
      if (typeof validate === 'string') return { ok: false, schemaError: validate };
      if (validate(args)) return { ok: true };
      return { ok: false, problems: (validate.errors ?? []).map(toProblem) };
    },
  };
}

function toProblem(error: ErrorObject): ArgumentProblem {
  const params = error.params as Record<string, unknown>;
  const escape = (name: unknown): string => String(name).replaceAll('~', '~0').replaceAll('/', '~1');
  if (error.keyword === 'required') {
    return { path: `${error.instancePath}/${escape(params.missingProperty)}`, problem: 'is required' };
  }
  if (error.keyword === 'additionalProperties') {
    return {
      path: `${error.instancePath}/${escape(params.additionalProperty)}`,
      problem: 'is not allowed by the schema',
    };
  }
  const allowed =
    error.keyword === 'enum' && Array.isArray(params.allowedValues)
      ? `: ${params.allowedValues.map((value) => JSON.stringify(value)).join(', ')}`
      : '';
  return { path: error.instancePath, problem: `${error.message ?? `fails ${error.keyword}`}${allowed}` };
}

/** "/path must be string; /mode must be equal to one of the allowed values: \"fast\", \"slow\"" */
export function describeArgumentProblems(problems: readonly ArgumentProblem[]): string {
  return problems
    .map((problem) => `${problem.path === '' ? 'the arguments' : problem.path} ${problem.problem}`)
    .join('; ');
}
