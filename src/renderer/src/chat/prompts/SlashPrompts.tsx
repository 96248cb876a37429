import { useEffect, useId, useRef, useState } from 'react';
import type { WorkbenchApi } from '../../../../shared/api';
import { errorText } from '../../../../shared/error-data';
import type { McpPrompt } from '../../../../shared/mcp';
import { matchingPrompts, missingArguments, promptText, slashQuery } from './slash-prompts';

/**
 * The servers' prompts as slash commands in the message box (docs/user/mcp-servers.md#prompts): "/"
 * lists them (↑ ↓ choose, Enter or Tab take one, Escape closes); a prompt with arguments opens a small form, with the
 * server's suggestions as the person types; the prompt's text then lands in the message box, to be read (and
 * changed) before it is sent. Nothing is fetched from a server but on the person's choice.
 */
export interface SlashPrompts {
  /** Rendered above the message box: the list or the arguments form. */
  panel: React.JSX.Element | null;
  /** The message box's attributes while the list is open (it controls the list). */
  inputProps: { 'aria-controls'?: string; 'aria-activedescendant'?: string; 'aria-autocomplete'?: 'list' };
  /** The message box's keys first: true when the list took the key. */
  onKeyDown(event: React.KeyboardEvent): boolean;
}

export function useSlashPrompts(
  api: WorkbenchApi,
  text: string,
  setText: (text: string) => void,
  focusInput: () => void,
  enabled: boolean,
): SlashPrompts {
  const listId = useId();
  const query = enabled ? slashQuery(text) : null;
  const [prompts, setPrompts] = useState<McpPrompt[] | null>(null);
  const [loadError, setLoadError] = useState<string | null>(null);
  const [active, setActive] = useState(0);
  const [closedFor, setClosedFor] = useState<string | null>(null);
  const [chosen, setChosen] = useState<McpPrompt | null>(null);
  const open = query !== null && closedFor !== text && chosen === null;

  // Loaded each time the list opens: servers come and go.
  useEffect(() => {
    if (!open) return;
    let live = true;
    api.mcp.prompts({}).then(
      (result) => {
        if (!live) return;
        setPrompts(result.prompts);
        setLoadError(null);
      },
      (error: unknown) => live && setLoadError(errorText(error)),
    );
    return () => {
      live = false;
    };
  }, [api, open]);

  const matches = open && prompts ? matchingPrompts(prompts, query ?? '') : [];
  const current = Math.min(active, Math.max(0, matches.length - 1));
  const optionId = (index: number): string => `${listId}-option-${index}`;

  const insert = async (prompt: McpPrompt, args: Record<string, string>): Promise<string | null> => {
    try {
      const result = await api.mcp.getPrompt({ name: prompt.server, prompt: prompt.name, arguments: args });
      setText(promptText(result));
      setChosen(null);
      focusInput();
      return null;
    } catch (error) {
      return errorText(error);
    }
  };
  const choose = (prompt: McpPrompt): void => {
    setActive(0);
    if (prompt.arguments.length > 0) setChosen(prompt);
    else void insert(prompt, {}).then((problem) => problem && setLoadError(problem));
  };

  const onKeyDown = (event: React.KeyboardEvent): boolean => {
    if (!open) return false;
    if (event.key === 'Escape') {
      setClosedFor(text);
      return true;
    }
    if (matches.length === 0) return false;
    if (event.key === 'ArrowDown' || event.key === 'ArrowUp') {
      setActive((current + (event.key === 'ArrowDown' ? 1 : matches.length - 1)) % matches.length);
      return true;
    }
    if ((event.key === 'Enter' && !event.shiftKey) || event.key === 'Tab') {
      const prompt = matches[current];
      if (prompt) choose(prompt);
      return true;
    }
    return false;
  };

  let panel: React.JSX.Element | null = null;
  if (chosen) {
    panel = (
      <PromptForm
        api={api}
        prompt={chosen}
        onCancel={() => {
          setChosen(null);
          focusInput();
        }}
        onSubmit={(args) => insert(chosen, args)}
      />
    );
  } else if (open) {
    panel = (
      <div className="slash-prompts" data-testid="slash-prompts">
        {loadError && (
          <p className="field-problem" role="alert">
            {loadError}
          </p>
        )}
        {prompts === null && !loadError && <p className="muted small">Asking the servers for their prompts…</p>}
        {prompts !== null && matches.length === 0 && (
          <p className="muted small" role="status">
            {prompts.length === 0 ? 'No MCP server offers prompts.' : `No prompt matches “/${query ?? ''}”.`}
          </p>
        )}
        {matches.length > 0 && (
          <ul id={listId} role="listbox" aria-label="Prompts of your MCP servers" className="slash-prompt-list">
            {matches.map((prompt, index) => (
              <li
                key={`${prompt.server}\u0000${prompt.name}`}
                id={optionId(index)}
                role="option"
                aria-selected={index === current}
                className={`slash-prompt${index === current ? ' is-active' : ''}`}
                onMouseDown={(event) => {
                  // Keep the focus in the message box.
                  event.preventDefault();
                  choose(prompt);
                }}
              >
                <span className="slash-prompt-name">/{prompt.name}</span>
                <span className="slash-prompt-server">{prompt.server}</span>
                {(prompt.description ?? prompt.title) && (
                  <span className="slash-prompt-description">{prompt.description ?? prompt.title}</span>
                )}
              </li>
            ))}
          </ul>
        )}
      </div>
    );
  }

  return {
    panel,
    inputProps:
      open && matches.length > 0
        ? { 'aria-controls': listId, 'aria-activedescendant': optionId(current), 'aria-autocomplete': 'list' }
        : {},
    onKeyDown,
  };
}

/** A prompt's arguments: required ones marked, the server's suggestions under each as it is typed. */
function PromptForm({
  api,
  prompt,
  onCancel,
  onSubmit,
}: {
  api: WorkbenchApi;
  prompt: McpPrompt;
  onCancel(): void;
  onSubmit(args: Record<string, string>): Promise<string | null>;
}): React.JSX.Element {
  const formId = useId();
  const [values, setValues] = useState<Record<string, string>>({});
  const [suggestions, setSuggestions] = useState<Record<string, string[]>>({});
  const [problem, setProblem] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const first = useRef<HTMLInputElement>(null);
  useEffect(() => first.current?.focus(), []);

  const suggest = (argument: string, value: string, context: Record<string, string>): void => {
    api.mcp.complete({ name: prompt.server, prompt: prompt.name, argument, value, context }).then(
      (result) => setSuggestions((current) => ({ ...current, [argument]: result.values })),
      () => {},
    );
  };

  return (
    <form
      className="prompt-form"
      noValidate
      aria-labelledby={`${formId}-title`}
      data-testid="prompt-form"
      onKeyDown={(event) => {
        if (event.key === 'Escape') {
          event.preventDefault();
          onCancel();
        }
      }}
      onSubmit={(event) => {
        event.preventDefault();
        const missing = missingArguments(prompt, values);
        if (missing.length > 0) {
          setProblem(`Fill in ${missing.join(', ')} first.`);
          return;
        }
        setBusy(true);
        setProblem(null);
        void onSubmit(values).then((failure) => {
          setBusy(false);
          setProblem(failure);
        });
      }}
    >
      <p className="prompt-form-title" id={`${formId}-title`}>
        <strong>/{prompt.name}</strong> <span className="muted">from {prompt.server}</span>
      </p>
      {prompt.description && <p className="muted small">{prompt.description}</p>}
      {prompt.arguments.map((argument, index) => (
        <label key={argument.name} className="prompt-field">
          <span>
            {argument.name}
            {argument.required ? <span aria-hidden="true"> *</span> : <span className="muted"> (optional)</span>}
          </span>
          <input
            ref={index === 0 ? first : undefined}
            list={`${formId}-${index}`}
            required={argument.required === true}
            aria-required={argument.required === true}
            value={values[argument.name] ?? ''}
            onFocus={() => suggest(argument.name, values[argument.name] ?? '', values)}
            onChange={(event) => {
              const next = { ...values, [argument.name]: event.target.value };
              setValues(next);
              setProblem(null);
              suggest(argument.name, event.target.value, next);
            }}
          />
          {argument.description && <span className="muted small">{argument.description}</span>}
          <datalist id={`${formId}-${index}`}>
            {(suggestions[argument.name] ?? []).map((value) => (
              <option key={value} value={value} />
            ))}
          </datalist>
        </label>
      ))}
      {problem && (
        <p className="field-problem" role="alert">
          {problem}
        </p>
      )}
      <div className="prompt-form-actions">
        <button type="submit" className="button button-primary" disabled={busy}>
          Insert into message
        </button>
        <button type="button" className="button" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}
