/** `JSON.parse` that answers `undefined` for text that is not JSON, for callers that validate what they get anyway. */
export function parseJsonOrUndefined(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
