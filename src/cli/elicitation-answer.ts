import type { ElicitationField } from '../shared/elicitation-fields';

/*
 * A form field's answer as typed at a terminal, read as its field's kind. Apart from the prompt, which loads the
 * request views' schemas: the command tree loads no zod at start (docs/dev/benchmarks.md, "What keeps them fast").
 */

/**
 * A field's value from what was typed (not empty): a number, yes/no, a choice by its number, value or title, a list
 * of choices separated by commas. What cannot be read as the field's type is kept as typed, for the schema check to name.
 */
export function fieldValue(field: ElicitationField, typed: string): unknown {
  const options = field.kind === 'select' || field.kind === 'multi' ? field.options : [];
  switch (field.kind) {
    case 'number':
      return typed !== '' && Number.isFinite(Number(typed)) ? Number(typed) : typed;
    case 'boolean':
      return /^(y|yes|true|1)$/i.test(typed) ? true : /^(n|no|false|0)$/i.test(typed) ? false : typed;
    case 'select':
      return choose(options, typed);
    case 'multi':
      return typed
        .split(',')
        .map((item) => item.trim())
        .filter(Boolean)
        .map((item) => choose(options, item));
    default:
      return typed;
  }
}

/** A choice by its number in the list, its value or its title (any case); anything else as typed. */
function choose(options: readonly { value: string; label: string }[], typed: string): string {
  const index = /^\d+$/.test(typed) ? Number(typed) - 1 : -1;
  const lower = typed.toLowerCase();
  return (
    options[index]?.value ??
    options.find((option) => option.value === typed)?.value ??
    options.find((option) => option.label.toLowerCase() === lower || option.value.toLowerCase() === lower)?.value ??
    typed
  );
}
