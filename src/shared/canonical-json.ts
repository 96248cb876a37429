/**
 * Canonical JSON (RFC 8785 style for the values we store): object keys sorted by UTF-16 code
 * units, no whitespace, `undefined` members dropped. The same value always gives the same text,
 * so hashes over it (tool definitions, audit rows, arguments) are stable across processes.
 */
export function canonicalJson(value: unknown): string {
  return write(value, new Set());
}

function write(value: unknown, seen: Set<object>): string {
  if (value === null) return 'null';
  switch (typeof value) {
    case 'string':
      return JSON.stringify(value);
    case 'boolean':
      return value ? 'true' : 'false';
    case 'number':
      if (!Number.isFinite(value)) throw new TypeError(`canonicalJson: ${value} has no JSON form`);
      return JSON.stringify(value);
    case 'bigint':
      throw new TypeError('canonicalJson: a bigint has no JSON form');
    case 'object':
      break;
    default:
      throw new TypeError(`canonicalJson: a ${typeof value} has no JSON form`);
  }
  const object = value as object;
  if (seen.has(object)) throw new TypeError('canonicalJson: the value contains a cycle');
  seen.add(object);
  try {
    if (Array.isArray(object))
      return `[${object.map((item) => (item === undefined ? 'null' : write(item, seen))).join(',')}]`;
    const toJson = (object as { toJSON?: () => unknown }).toJSON;
    if (typeof toJson === 'function') return write(toJson.call(object), seen);
    const members = Object.keys(object)
      .filter((key) => (object as Record<string, unknown>)[key] !== undefined)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${write((object as Record<string, unknown>)[key], seen)}`);
    return `{${members.join(',')}}`;
  } finally {
    seen.delete(object);
  }
}
