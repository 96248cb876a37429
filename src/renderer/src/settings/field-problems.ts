import { isWorkbenchErrorData } from '../../../shared/error-data';

/**
 * The fields a refused call names, so a form can show each reason under its field. Reads the two shapes
 * main sends: the dispatcher's `details.issues` (`{ path: 'server.command', message }`) and the policy's
 * `details.problems` (`{ ruleId, field: 'args[0].value', problem }`). `prefix` strips a leading path
 * (`server.` for an MCP server form). Issues that name no field of the form go under `''`.
 */
export function fieldProblems(error: unknown, prefix = ''): Record<string, string> {
  const found: Record<string, string> = {};
  if (!isWorkbenchErrorData(error)) return { '': error instanceof Error ? error.message : String(error) };
  const details = error.details as { issues?: unknown; problems?: unknown } | undefined;
  const add = (field: string, message: string): void => {
    const key = prefix && field.startsWith(prefix) ? field.slice(prefix.length) : field;
    found[key] = found[key] ? `${found[key]}; ${message}` : message;
  };
  if (details && Array.isArray(details.problems)) {
    for (const problem of details.problems as { field?: unknown; problem?: unknown }[]) {
      if (typeof problem.field === 'string' && typeof problem.problem === 'string') add(problem.field, problem.problem);
    }
  } else if (details && Array.isArray(details.issues)) {
    for (const issue of details.issues as { path?: unknown; message?: unknown }[]) {
      if (typeof issue.message !== 'string') continue;
      const path = Array.isArray(issue.path)
        ? issue.path.map(String).join('.')
        : typeof issue.path === 'string'
          ? issue.path
          : '';
      add(path, issue.message);
    }
  }
  if (Object.keys(found).length === 0) found[''] = error.message;
  return found;
}

/** `args[0].value` and `args.0.value` name the same field; forms use the dotted form. */
export function normaliseField(field: string): string {
  return field.replace(/\[(\d+)\]/g, '.$1');
}
