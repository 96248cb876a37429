import { useId, useMemo, useState } from 'react';
import { prettyJson } from '../format';
import { argsFromForm, argsFromJson, formFields, formValues } from './schema-form';

export interface ArgumentsEditorProps {
  schema: Record<string, unknown>;
  /** What the model sent. */
  original: Record<string, unknown>;
  /** What the editor starts with (earlier edits). */
  initial: Record<string, unknown>;
  /** Called on every change: the arguments, or the problem that keeps them from being sent. */
  onChange(result: { ok: true; args: Record<string, unknown> } | { ok: false; error: string }): void;
}

/** Seed 004's argument editing: a form from the JSON Schema for simple tools, a validated JSON editor otherwise. */
export function ArgumentsEditor({ schema, original, initial, onChange }: ArgumentsEditorProps): React.JSX.Element {
  const fields = useMemo(() => formFields(schema), [schema]);
  const [mode, setMode] = useState<'form' | 'json'>(fields ? 'form' : 'json');
  return (
    <div className="args-editor">
      {fields && (
        <div className="args-editor-modes" role="tablist" aria-label="Edit as">
          <button type="button" role="tab" aria-selected={mode === 'form'} className={mode === 'form' ? 'is-active' : ''} onClick={() => setMode('form')}>
            Form
          </button>
          <button type="button" role="tab" aria-selected={mode === 'json'} className={mode === 'json' ? 'is-active' : ''} onClick={() => setMode('json')}>
            JSON
          </button>
        </div>
      )}
      {mode === 'form' && fields ? (
        <FormEditor fields={fields} initial={initial} onChange={onChange} />
      ) : (
        <JsonEditor schema={schema} initial={initial} onChange={onChange} />
      )}
      <p className="args-editor-note muted">
        The model sent: <code className="inline-code">{JSON.stringify(original)}</code>
      </p>
    </div>
  );
}

function FormEditor({
  fields,
  initial,
  onChange,
}: {
  fields: NonNullable<ReturnType<typeof formFields>>;
  initial: Record<string, unknown>;
  onChange: ArgumentsEditorProps['onChange'];
}): React.JSX.Element {
  const [values, setValues] = useState(() => formValues(fields, initial));
  const [errors, setErrors] = useState<Record<string, string>>({});
  const baseId = useId();
  const update = (name: string, value: string): void => {
    const next = { ...values, [name]: value };
    setValues(next);
    const parsed = argsFromForm(fields, next);
    setErrors(parsed.ok ? {} : parsed.errors);
    onChange(parsed.ok ? parsed : { ok: false, error: Object.entries(parsed.errors).map(([field, problem]) => `${field}: ${problem}`).join(' ') });
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
              <select {...common} value={values[field.name] ?? ''} onChange={(event) => update(field.name, event.target.value)}>
                <option value="">(not set)</option>
                <option value="true">true</option>
                <option value="false">false</option>
              </select>
            ) : field.options ? (
              <select {...common} value={values[field.name] ?? ''} onChange={(event) => update(field.name, event.target.value)}>
                <option value="">(not set)</option>
                {field.options.map((option) => (
                  <option key={option} value={option}>
                    {option}
                  </option>
                ))}
              </select>
            ) : field.multiline ? (
              <textarea {...common} rows={4} value={values[field.name] ?? ''} onChange={(event) => update(field.name, event.target.value)} />
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

function JsonEditor({ schema, initial, onChange }: { schema: Record<string, unknown>; initial: Record<string, unknown>; onChange: ArgumentsEditorProps['onChange'] }): React.JSX.Element {
  const [text, setText] = useState(() => prettyJson(initial));
  const [error, setError] = useState<string | null>(null);
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
          onChange(parsed);
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
