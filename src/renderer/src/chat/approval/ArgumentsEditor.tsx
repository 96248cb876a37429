import { useId, useMemo } from 'react';
import type { ArgsEdit } from '../chat-store';
import { prettyJson } from '../format';
import {
  argsFromForm,
  argsFromJson,
  fieldsMissing,
  formFields,
  formObject,
  formValues,
  jsonObject,
  type FormField,
} from './schema-form';
import { useCardState } from './card-state';

export interface ArgumentsEditorProps {
  /** The call edited: what is typed is kept for it across the card's unmounts (card-state.ts). */
  toolCallId: string;
  schema: Record<string, unknown>;
  /** What the model sent. */
  original: Record<string, unknown>;
  /** What the editor starts with (earlier edits). */
  initial: Record<string, unknown>;
  /** Called on every change: the arguments, or the problem that keeps them from being sent. */
  onChange(result: ArgsEdit): void;
}

type Mode = 'form' | 'json';

/**
 * Seed 004's argument editing: a form from the JSON Schema for simple tools, a validated JSON editor otherwise.
 * Switching between the two carries what is on screen over, mistakes included (the other editor names them), so the
 * arguments reported are always the ones shown; JSON that is no object, or has properties the form has no field for,
 * cannot switch to the form (it would drop them), and the Form tab says why.
 */
export function ArgumentsEditor({
  toolCallId,
  schema,
  original,
  initial,
  onChange,
}: ArgumentsEditorProps): React.JSX.Element {
  const fields = useMemo(() => formFields(schema), [schema]);
  const [mode, setMode] = useCardState<Mode>(toolCallId, 'editor.mode', fields ? 'form' : 'json');
  // What is on screen as an object, for the other editor; a reason when it cannot be one.
  const [shown, setShown] = useCardState<{ ok: true; object: Record<string, unknown> } | { ok: false; error: string }>(
    toolCallId,
    'editor.shown',
    {
      ok: true,
      object: initial,
    },
  );
  // Switching mounts the other editor with its problems shown at once (they are the ones just carried over).
  const [checkOnOpen, setCheckOnOpen] = useCardState(toolCallId, 'editor.checkOnOpen', false);
  // Each switch starts the other editor afresh from what was on screen (what it kept before is stale).
  const [session, setSession] = useCardState(toolCallId, 'editor.session', 0);
  const keep = `editor.${session}`;
  const formBlocked = !fields
    ? null
    : !shown.ok
      ? 'Fix the JSON to switch to the form.'
      : formBlockReason(fields, shown.object);
  const hintId = useId();

  const switchTo = (next: Mode): void => {
    if (next === mode || !fields || !shown.ok || (next === 'form' && formBlocked)) return;
    onChange(
      next === 'form'
        ? fromForm(fields, formValues(fields, shown.object))
        : argsFromJson(schema, prettyJson(shown.object)),
    );
    setCheckOnOpen(true);
    setSession((before) => before + 1);
    setMode(next);
  };

  return (
    <div className="args-editor">
      {fields && (
        <div className="args-editor-modes" role="tablist" aria-label="Edit as">
          <button
            type="button"
            role="tab"
            aria-selected={mode === 'form'}
            aria-disabled={mode !== 'form' && formBlocked ? true : undefined}
            aria-describedby={mode !== 'form' && formBlocked ? hintId : undefined}
            className={mode === 'form' ? 'is-active' : ''}
            onClick={() => switchTo('form')}
          >
            Form
          </button>
          <button
            type="button"
            role="tab"
            aria-selected={mode === 'json'}
            className={mode === 'json' ? 'is-active' : ''}
            onClick={() => switchTo('json')}
          >
            JSON
          </button>
          {mode !== 'form' && formBlocked && (
            <span id={hintId} className="args-editor-hint muted">
              {formBlocked}
            </span>
          )}
        </div>
      )}
      {mode === 'form' && fields ? (
        <FormEditor
          toolCallId={toolCallId}
          keep={keep}
          fields={fields}
          initial={shown.ok ? shown.object : initial}
          checkOnOpen={checkOnOpen}
          onChange={(result, object) => {
            setShown({ ok: true, object });
            onChange(result);
          }}
        />
      ) : (
        <JsonEditor
          toolCallId={toolCallId}
          keep={keep}
          schema={schema}
          initial={shown.ok ? shown.object : initial}
          checkOnOpen={checkOnOpen}
          onChange={(result, object) => {
            setShown(object);
            onChange(result);
          }}
        />
      )}
      <p className="args-editor-note muted">
        The model sent: <code className="inline-code">{JSON.stringify(original)}</code>
      </p>
    </div>
  );
}

function formBlockReason(fields: readonly FormField[], object: Record<string, unknown>): string | null {
  const missing = fieldsMissing(fields, object);
  if (missing.length === 0) return null;
  return `The form has no field for ${missing.join(', ')}: edit ${missing.length === 1 ? 'it' : 'them'} here or remove ${missing.length === 1 ? 'it' : 'them'}.`;
}

function fromForm(fields: readonly FormField[], values: Record<string, string>): ArgsEdit {
  const parsed = argsFromForm(fields, values);
  return parsed.ok
    ? parsed
    : {
        ok: false,
        error: Object.entries(parsed.errors)
          .map(([field, problem]) => `${field}: ${problem}`)
          .join(' '),
      };
}

function FormEditor({
  toolCallId,
  keep,
  fields,
  initial,
  checkOnOpen,
  onChange,
}: {
  toolCallId: string;
  keep: string;
  fields: readonly FormField[];
  initial: Record<string, unknown>;
  checkOnOpen: boolean;
  onChange(result: ArgsEdit, object: Record<string, unknown>): void;
}): React.JSX.Element {
  const [values, setValues] = useCardState(toolCallId, `${keep}.values`, () => formValues(fields, initial));
  const [errors, setErrors] = useCardState<Record<string, string>>(toolCallId, `${keep}.errors`, () => {
    if (!checkOnOpen) return {};
    const parsed = argsFromForm(fields, values);
    return parsed.ok ? {} : parsed.errors;
  });
  const baseId = useId();
  const update = (name: string, value: string): void => {
    const next = { ...values, [name]: value };
    setValues(next);
    const parsed = argsFromForm(fields, next);
    setErrors(parsed.ok ? {} : parsed.errors);
    onChange(fromForm(fields, next), formObject(fields, next));
  };
  return (
    <div className="args-form">
      {fields.map((field) => {
        const id = `${baseId}-${field.name}`;
        const error = errors[field.name];
        const common = {
          id,
          'aria-invalid': error ? true : undefined,
          'aria-describedby': error ? `${id}-error` : undefined,
        };
        return (
          <div className="args-field" key={field.name}>
            <label htmlFor={id}>
              {field.name}
              {field.required && <span aria-hidden="true"> *</span>}
              {field.description && <span className="muted args-field-description"> — {field.description}</span>}
            </label>
            {field.type === 'boolean' ? (
              <select
                {...common}
                value={values[field.name] ?? ''}
                onChange={(event) => update(field.name, event.target.value)}
              >
                <option value="">(not set)</option>
                <option value="true">true</option>
                <option value="false">false</option>
              </select>
            ) : field.options ? (
              <select
                {...common}
                value={values[field.name] ?? ''}
                onChange={(event) => update(field.name, event.target.value)}
              >
                <option value="">(not set)</option>
                {field.options.map((option) => (
                  <option key={option} value={option}>
                    {option}
                  </option>
                ))}
              </select>
            ) : field.multiline ? (
              <textarea
                {...common}
                rows={4}
                value={values[field.name] ?? ''}
                onChange={(event) => update(field.name, event.target.value)}
              />
            ) : (
              <input
                {...common}
                type="text"
                inputMode={field.type === 'string' ? undefined : 'decimal'}
                value={values[field.name] ?? ''}
                onChange={(event) => update(field.name, event.target.value)}
              />
            )}
            {error && (
              <span className="field-problem" id={`${id}-error`} role="alert">
                {error}
              </span>
            )}
          </div>
        );
      })}
    </div>
  );
}

function JsonEditor({
  toolCallId,
  keep,
  schema,
  initial,
  checkOnOpen,
  onChange,
}: {
  toolCallId: string;
  keep: string;
  schema: Record<string, unknown>;
  initial: Record<string, unknown>;
  checkOnOpen: boolean;
  onChange(result: ArgsEdit, object: ReturnType<typeof jsonObject>): void;
}): React.JSX.Element {
  const [text, setText] = useCardState(toolCallId, `${keep}.text`, () => prettyJson(initial));
  const [error, setError] = useCardState<string | null>(toolCallId, `${keep}.error`, () => {
    if (!checkOnOpen) return null;
    const parsed = argsFromJson(schema, text);
    return parsed.ok ? null : parsed.error;
  });
  const id = useId();
  return (
    <div className="args-json">
      <label htmlFor={id} className="visually-hidden">
        Arguments as JSON
      </label>
      <textarea
        id={id}
        className="args-json-input"
        spellCheck={false}
        rows={Math.min(14, Math.max(4, text.split('\n').length + 1))}
        value={text}
        aria-invalid={error ? true : undefined}
        aria-describedby={error ? `${id}-error` : undefined}
        onChange={(event) => {
          setText(event.target.value);
          const parsed = argsFromJson(schema, event.target.value);
          setError(parsed.ok ? null : parsed.error);
          onChange(parsed, jsonObject(event.target.value));
        }}
      />
      {error && (
        <span className="field-problem" id={`${id}-error`} role="alert">
          {error}
        </span>
      )}
    </div>
  );
}
