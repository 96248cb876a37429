import type { ToolCallArguments } from './conversation';

/**
 * Parses the arguments text a model streamed for one tool call. Empty text means "no arguments" (models
 * send `""` for tools without parameters); anything that is not a JSON object is kept, raw, as malformed.
 */
export function parseToolArguments(raw: string): ToolCallArguments {
  if (raw.trim() === '') return { kind: 'parsed', value: {} };
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch (error) {
    return { kind: 'malformed', raw, problem: `not valid JSON (${(error as Error).message})` };
  }
  return toolArgumentsFromValue(value, raw);
}

/** For providers that send arguments already parsed (Gemini): anything but a plain object is malformed. */
export function toolArgumentsFromValue(
  value: unknown,
  raw = JSON.stringify(value) ?? String(value),
): ToolCallArguments {
  if (value === undefined || value === null) return { kind: 'parsed', value: {} };
  if (typeof value !== 'object' || Array.isArray(value)) {
    return {
      kind: 'malformed',
      raw,
      problem: `a JSON ${Array.isArray(value) ? 'array' : typeof value}, not an object`,
    };
  }
  return { kind: 'parsed', value: value as Record<string, unknown> };
}

/** The arguments as text, for wire formats that carry them as a string: what the model sent, unchanged when malformed. */
export function toolArgumentsText(args: ToolCallArguments): string {
  return args.kind === 'parsed' ? JSON.stringify(args.value) : args.raw;
}

/** The arguments as an object, for wire formats that carry them as one: `{}` stands in for malformed ones. */
export function toolArgumentsObject(args: ToolCallArguments): Record<string, unknown> {
  return args.kind === 'parsed' ? args.value : {};
}
