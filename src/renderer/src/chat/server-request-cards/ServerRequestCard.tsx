import { useEffect, useId, useRef, useState } from 'react';
import type { WorkbenchApi } from '../../../../shared/api';
import { errorText } from '../../../../shared/error-data';
import type {
  ElicitationFormView,
  ElicitationUrlView,
  SamplingRequestView,
  ServerRequestDecision,
  SamplingMediaView,
  SandboxWideningRequestView,
  ServerRequestView,
  AppToolCallView,
} from '../../../../shared/server-request-views';
import { formatByteSize } from '../../../../shared/byte-size';
import { WarningIcon } from '../../components/icons';
import { WideningBody } from '../../components/WideningCard';
import { CardFrame } from '../approval/CardFrame';
import { Countdown } from '../approval/Countdown';
import { useSteadyClicks } from '../steady-clicks';
import {
  contentOf,
  elicitationFields,
  elicitationProblemsOf,
  initialValues,
  type ElicitationField,
  type ElicitationProblem,
  type FieldValue,
} from '../../../../shared/elicitation-fields';
import { isWebUrl } from '../../../../shared/web-url';
import { useRequestCardState, type RequestCardStates, type RequestOutcomeState } from './request-card-state';
import { HeldElsewhereNote, HolderName } from './HeldElsewhere';

export interface ServerRequestCardProps {
  api: WorkbenchApi;
  request: ServerRequestView;
  /** Where the card keeps what the person gave it while it is unmounted (request-card-state.ts). */
  kept: RequestCardStates;
}

/**
 * A server's request of the model or the person, decided like a tool call (docs/user/server-requests.md): sampling
 * (the prompt, editable, then the model's answer, editable), a form, or a page to open.
 */
export function ServerRequestCard({ api, request, kept }: ServerRequestCardProps): React.JSX.Element {
  const [busy, setBusy] = useState(false);
  // A request held by another process: the stage whose answer that process applied (the card waits for the inbox's
  // next look, which drops it or brings its next stage).
  const [appliedStage, setAppliedStage] = useState<string | null>(null);
  // The last answer's problem, and a form's answer that does not fit its schema: the words go beside each field
  // (docs/user/server-requests.md).
  const [{ problem, fieldProblems }, setOutcome] = useRequestCardState(kept, request.id, 'outcome', () => NO_OUTCOME);
  const decide = async (decision: ServerRequestDecision): Promise<boolean> => {
    setBusy(true);
    setOutcome((previous) => (previous.problem === null ? previous : { ...previous, problem: null }));
    try {
      await api.serverRequests.decide({ id: request.id, decision });
      if (request.heldElsewhere) setAppliedStage(stageOf(request));
      return true;
    } catch (error) {
      const problems = elicitationProblemsOf(error);
      const marked = problems.filter((item) => item.field !== '').length;
      setOutcome({
        fieldProblems: problems,
        problem:
          marked === 0
            ? errorText(error)
            : [
                `Not sent: ${marked === 1 ? 'one field does' : `${marked} fields do`} not fit the form (marked above).`,
                ...problems.filter((item) => item.field === '').map((item) => item.message),
              ].join(' '),
      });
      return false;
    } finally {
      setBusy(false);
    }
  };
  if (request.heldElsewhere && appliedStage === stageOf(request))
    return (
      <Card request={request} title={`${BADGE[request.kind]} request of ${request.serverName}`}>
        <p className="held-elsewhere-applied" role="status">
          Answered: <HolderName name={request.heldElsewhere.process} /> applied your answer.
        </p>
      </Card>
    );
  const props = { request, kept, busy, problem, decide } as const;
  if (request.kind === 'sandbox-widening') return <SandboxWidening {...props} request={request} />;
  if (request.kind === 'app-tool-call') return <AppToolCall {...props} request={request} />;
  if (request.kind === 'sampling') {
    return request.stage === 'request' ? (
      <SamplingPrompt key={`${request.id}-request`} {...props} request={request} />
    ) : (
      <SamplingAnswer key={`${request.id}-answer`} {...props} request={request} />
    );
  }
  return request.mode === 'form' ? (
    <ElicitationForm {...props} request={request} fieldProblems={fieldProblems} />
  ) : (
    <ElicitationUrl {...props} request={request} />
  );
}

interface PartProps<R extends ServerRequestView> {
  request: R;
  kept: RequestCardStates;
  busy: boolean;
  problem: string | null;
  decide(decision: ServerRequestDecision): Promise<boolean>;
}

function Card({
  request,
  title,
  children,
}: {
  request: ServerRequestView;
  title: string;
  children: React.ReactNode;
}): React.JSX.Element {
  const titleId = useId();
  const kind =
    request.kind === 'sampling'
      ? `sampling-${request.stage}`
      : request.kind === 'elicitation'
        ? `elicitation-${request.mode}`
        : request.kind;
  // A click decides only what it was aimed at: the model's answer takes the place of the prompt that was just
  // allowed, and a second click must not send it on (steady-clicks.ts).
  const steady = useSteadyClicks();
  return (
    <CardFrame
      titleId={titleId}
      title={title}
      badges={
        <>
          <span className="risk-badge risk-info">{BADGE[request.kind]}</span>
          {request.expiresAt ? <Countdown expiresAt={request.expiresAt} /> : null}
        </>
      }
      variant="server-request-card"
      steady={steady}
      data-testid="server-request-card"
      data-kind={kind}
      data-request-id={request.id}
    >
      <HeldElsewhereNote request={request} />
      {children}
    </CardFrame>
  );
}

function Problem({ text }: { text: string | null }): React.JSX.Element | null {
  return text ? (
    <p className="server-request-problem" role="alert">
      {text}
    </p>
  ) : null;
}

interface Choice {
  label: string;
  /** The decision it sends; `submit` makes it the form's submit button instead. */
  decision: ServerRequestDecision | 'submit';
  tone?: 'primary' | 'danger' | undefined;
  title?: string | undefined;
  disabled?: boolean | undefined;
  /** Instead of sending `decision` directly (a page opens once the decision is recorded). */
  onChoose?: (() => void) | undefined;
}

const TONE = { primary: 'button button-primary', danger: 'button button-danger-soft' } as const;

/** The card's problem, if any, and its row of answers: the same for every kind of request. */
function Answers({
  busy,
  problem,
  decide,
  choices,
}: Omit<PartProps<ServerRequestView>, 'request' | 'kept'> & { choices: Choice[] }): React.JSX.Element {
  return (
    <>
      <Problem text={problem} />
      <div className="approval-actions">
        {choices.map(({ label, decision, tone, title, disabled, onChoose }) => (
          <button
            key={label}
            type={decision === 'submit' ? 'submit' : 'button'}
            className={tone ? TONE[tone] : 'button'}
            disabled={busy || disabled}
            title={title}
            onClick={decision === 'submit' ? undefined : () => (onChoose ? onChoose() : void decide(decision))}
          >
            {label}
          </button>
        ))}
      </div>
    </>
  );
}

/** A sampling message's images as thumbnails, and any other media by type, each with its type and size. */
function Media({ media }: { media: readonly SamplingMediaView[] }): React.JSX.Element {
  return (
    <ul className="server-request-media" aria-label="Images and audio in this message">
      {media.map((item, index) => {
        const caption = `${item.mimeType}, ${formatByteSize(item.bytes)}`;
        return (
          <li key={index} className="server-request-media-item" data-testid="sampling-media">
            {item.type === 'image' && item.data !== undefined ? (
              <img
                className="server-request-thumbnail"
                src={`data:${item.mimeType};base64,${item.data}`}
                alt={`Image in the prompt (${caption})`}
              />
            ) : null}
            <span className="muted">
              {item.type === 'image' ? 'Image' : 'Audio'} · {caption}
            </span>
          </li>
        );
      })}
    </ul>
  );
}

function SamplingPrompt({ request, kept, ...answering }: PartProps<SamplingRequestView>): React.JSX.Element {
  const id = useId();
  const [{ messages, systemPrompt }, setPrompt] = useRequestCardState(kept, request.id, 'prompt', () => ({
    messages: request.messages.map((message) => message.text),
    systemPrompt: request.systemPrompt ?? '',
  }));
  const edits = (): Pick<ServerRequestDecision, 'messages' | 'systemPrompt'> => ({
    ...(messages.some((text, index) => text !== request.messages[index]?.text) ? { messages: [...messages] } : {}),
    ...(systemPrompt !== (request.systemPrompt ?? '') ? { systemPrompt } : {}),
  });
  const preferences = request.modelPreferences;
  const elsewhere = request.heldElsewhere !== undefined;
  return (
    <Card request={request} title={`Allow ${request.serverName} to use your model?`}>
      <dl className="server-request-facts">
        <dt>Model</dt>
        <dd>{request.model ? `${request.model.model} (${request.model.providerId})` : 'none'}</dd>
        <dt>Max tokens</dt>
        <dd>{request.maxTokens}</dd>
        {request.temperature !== null && (
          <>
            <dt>Temperature</dt>
            <dd>{request.temperature}</dd>
          </>
        )}
        <dt>Budget</dt>
        <dd>
          {request.budget.used.toLocaleString()} of {request.budget.limit.toLocaleString()} tokens used{' '}
          {request.chatId ? 'in this chat' : ''}
        </dd>
        {preferences && (
          <>
            <dt>Model preferences</dt>
            <dd>
              {[
                preferences.hints.length > 0 ? `hints: ${preferences.hints.join(', ')}` : null,
                preferences.intelligencePriority !== null ? `intelligence ${preferences.intelligencePriority}` : null,
                preferences.speedPriority !== null ? `speed ${preferences.speedPriority}` : null,
                preferences.costPriority !== null ? `cost ${preferences.costPriority}` : null,
              ]
                .filter(Boolean)
                .join(' · ') || 'none'}
            </dd>
          </>
        )}
      </dl>
      <label className="server-request-label" htmlFor={`${id}-system`}>
        System prompt
      </label>
      <textarea
        id={`${id}-system`}
        className="server-request-text"
        rows={2}
        readOnly={elsewhere}
        value={systemPrompt}
        onChange={(event) => setPrompt({ messages, systemPrompt: event.target.value })}
      />
      {request.messages.map((message, index) => (
        <div key={index} className="server-request-message">
          <label className="server-request-label" htmlFor={`${id}-m${index}`}>
            Message {index + 1} · {message.role}
          </label>
          <textarea
            id={`${id}-m${index}`}
            className="server-request-text"
            rows={Math.min(8, Math.max(2, Math.ceil((messages[index]?.length ?? 0) / 80)))}
            readOnly={elsewhere}
            value={messages[index] ?? ''}
            onChange={(event) =>
              setPrompt({
                systemPrompt,
                messages: messages.map((text, at) => (at === index ? event.target.value : text)),
              })
            }
          />
          {message.media && <Media media={message.media} />}
        </div>
      ))}
      <p className="approval-warning">
        <WarningIcon size={14} /> The server wrote this prompt. Allowing sends it to your model and spends your tokens;
        you see the answer before it goes back.
      </p>
      <Answers
        {...answering}
        choices={[
          ...(request.chatId !== null && !elsewhere
            ? [
                {
                  label: 'Allow for this chat',
                  title: 'Let this server sample without asking for the rest of this chat',
                  decision: { action: 'allow-chat', ...edits() },
                } satisfies Choice,
              ]
            : []),
          { label: 'Allow once', tone: 'primary', decision: { action: 'allow-once', ...edits() } },
          { label: 'Deny', tone: 'danger', decision: { action: 'deny' } },
        ]}
      />
    </Card>
  );
}

function SamplingAnswer({ request, kept, ...answering }: PartProps<SamplingRequestView>): React.JSX.Element {
  const id = useId();
  const [{ text }, setAnswer] = useRequestCardState(kept, request.id, 'answer', () => ({
    text: request.answer?.text ?? '',
  }));
  const elsewhere = request.heldElsewhere !== undefined;
  return (
    <Card request={request} title={`Send the model's answer to ${request.serverName}?`}>
      <p className="muted server-request-meta">
        {request.answer?.model} wrote {request.answer?.outputTokens ?? 0} tokens ({request.budget.used.toLocaleString()}{' '}
        of {request.budget.limit.toLocaleString()} used).
      </p>
      <label className="server-request-label" htmlFor={`${id}-answer`}>
        Answer
      </label>
      <textarea
        id={`${id}-answer`}
        className="server-request-text"
        rows={Math.min(10, Math.max(3, Math.ceil(text.length / 80)))}
        readOnly={elsewhere}
        value={text}
        onChange={(event) => setAnswer({ text: event.target.value })}
      />
      <Answers
        {...answering}
        choices={[
          {
            label: 'Send answer',
            tone: 'primary',
            decision: { action: 'send', ...(text !== request.answer?.text && !elsewhere ? { text } : {}) },
          },
          { label: 'Deny', tone: 'danger', decision: { action: 'deny' } },
        ]}
      />
    </Card>
  );
}

function ElicitationForm({
  request,
  kept,
  fieldProblems,
  ...answering
}: PartProps<ElicitationFormView> & { fieldProblems: readonly ElicitationProblem[] }): React.JSX.Element {
  const { decide } = answering;
  const [fields] = useState(() => elicitationFields(request.requestedSchema));
  // What the person typed stays as typed through a refusal; only the fields' problems change. The fields corrected
  // since the last refusal lose their mark; the schema is checked again on Accept.
  const [{ values, corrected }, setForm] = useRequestCardState(kept, request.id, 'form', () => ({
    values: initialValues(fields),
    corrected: { of: fieldProblems, names: new Set<string>() },
  }));
  const correctedNow = corrected.of === fieldProblems ? corrected.names : new Set<string>();
  const shown = new Map(
    fieldProblems
      .filter((item) => item.field !== '' && !correctedNow.has(item.field))
      .map((item) => [item.field, item.message]),
  );
  const form = useRef<HTMLFormElement>(null);
  // A refusal takes the keyboard to the first wrong field; the card coming back into view with an older refusal
  // (kept while it was unmounted) does not.
  const [mountedWith] = useState(fieldProblems);
  useEffect(() => {
    if (fieldProblems !== mountedWith && fieldProblems.length > 0)
      form.current?.querySelector<HTMLElement>('[aria-invalid="true"]')?.focus();
  }, [fieldProblems, mountedWith]);
  const set = (name: string, value: FieldValue): void => {
    setForm({
      values: { ...values, [name]: value },
      corrected: shown.has(name) ? { of: fieldProblems, names: new Set([...correctedNow, name]) } : corrected,
    });
  };
  return (
    <Card request={request} title={`${request.serverName} asks for information`}>
      <p className="server-request-message-text">{request.message}</p>
      <form
        ref={form}
        className="elicitation-form"
        noValidate
        onSubmit={(event) => {
          event.preventDefault();
          void decide({ action: 'accept', content: contentOf(fields, values) });
        }}
      >
        {fields.map((field) => (
          <Field
            key={field.name}
            field={field}
            value={values[field.name]}
            problem={shown.get(field.name)}
            onChange={(value) => set(field.name, value)}
          />
        ))}
        <Answers
          {...answering}
          choices={[{ label: 'Accept', tone: 'primary', decision: 'submit' }, ...DECLINE_OR_CANCEL]}
        />
      </form>
    </Card>
  );
}

function Field({
  field,
  value,
  problem,
  onChange,
}: {
  field: ElicitationField;
  value: FieldValue | undefined;
  /** Why the answer refused did not fit, named by the field's title. */
  problem: string | undefined;
  onChange(value: FieldValue): void;
}): React.JSX.Element {
  const id = useId();
  const label = (
    <label className="server-request-label" htmlFor={id}>
      {field.label}
      {field.required && <span aria-hidden="true"> *</span>}
    </label>
  );
  const description = field.description ? (
    <span id={`${id}-description`} className="muted elicitation-description">
      {field.description}
    </span>
  ) : null;
  const error = problem ? (
    <span id={`${id}-problem`} className="field-problem elicitation-problem" data-testid="elicitation-problem">
      {problem}
    </span>
  ) : null;
  const describedBy =
    [problem ? `${id}-problem` : '', field.description ? `${id}-description` : ''].filter(Boolean).join(' ') ||
    undefined;
  const invalid = problem ? true : undefined;
  switch (field.kind) {
    case 'boolean':
      return (
        <div className="elicitation-field elicitation-check">
          <input
            id={id}
            type="checkbox"
            checked={value === true}
            aria-invalid={invalid}
            aria-describedby={describedBy}
            onChange={(event) => onChange(event.target.checked)}
          />
          {label}
          {error}
          {description}
        </div>
      );
    case 'select':
      return (
        <div className="elicitation-field">
          {label}
          <select
            id={id}
            value={typeof value === 'string' ? value : ''}
            required={field.required}
            aria-invalid={invalid}
            aria-describedby={describedBy}
            onChange={(event) => onChange(event.target.value)}
          >
            {!field.required && <option value="">—</option>}
            {field.options.map((option) => (
              <option key={option.value} value={option.value}>
                {option.label}
              </option>
            ))}
          </select>
          {error}
          {description}
        </div>
      );
    case 'multi': {
      const chosen = Array.isArray(value) ? value : [];
      return (
        <fieldset className="elicitation-field elicitation-multi" aria-describedby={describedBy}>
          <legend className="server-request-label">{field.label}</legend>
          {field.options.map((option) => (
            <label key={option.value} className="elicitation-option">
              <input
                type="checkbox"
                checked={chosen.includes(option.value)}
                aria-invalid={invalid}
                onChange={(event) =>
                  onChange(
                    event.target.checked ? [...chosen, option.value] : chosen.filter((item) => item !== option.value),
                  )
                }
              />
              {option.label}
            </label>
          ))}
          {error}
          {description}
        </fieldset>
      );
    }
    case 'unsupported':
      return (
        <div className="elicitation-field">
          {label}
          <span className="muted">This field cannot be filled here (not part of MCP&apos;s form schema).</span>
          {error}
        </div>
      );
    default:
      return (
        <div className="elicitation-field">
          {label}
          <input
            id={id}
            type={field.kind === 'number' ? 'number' : field.inputType}
            step={field.kind === 'number' ? (field.integer ? 1 : 'any') : undefined}
            min={field.kind === 'number' ? field.min : undefined}
            max={field.kind === 'number' ? field.max : undefined}
            required={field.required}
            aria-invalid={invalid}
            aria-describedby={describedBy}
            value={typeof value === 'string' ? value : ''}
            onChange={(event) => onChange(event.target.value)}
          />
          {error}
          {description}
        </div>
      );
  }
}

function ElicitationUrl({ request, ...answering }: PartProps<ElicitationUrlView>): React.JSX.Element {
  const { decide } = answering;
  const host = hostOf(request.url);
  // Only http(s) pages are offered (shared/web-url.ts); the main process declines others before they get here.
  const web = isWebUrl(request.url);
  const open = async (): Promise<void> => {
    // Opened only once the main process recorded the person's confirmation; never before.
    if (web && (await decide({ action: 'accept' }))) window.open(request.url, '_blank', 'noopener,noreferrer');
  };
  return (
    <Card request={request} title={`${request.serverName} asks you to open a page`}>
      <p className="server-request-message-text">{request.message}</p>
      <p className="server-request-label">The full address{host ? ` (on ${host})` : ''}:</p>
      <code className="server-request-url" data-testid="elicitation-url">
        {request.url}
      </code>
      <p className="approval-warning">
        <WarningIcon size={14} /> Check the address before you open it: the server chose it.
      </p>
      <Answers
        {...answering}
        choices={[
          ...(request.heldElsewhere
            ? []
            : [
                {
                  label: 'Open page',
                  tone: 'primary',
                  decision: { action: 'accept' },
                  disabled: !web,
                  onChoose: () => void open(),
                } satisfies Choice,
              ]),
          ...DECLINE_OR_CANCEL,
        ]}
      />
    </Card>
  );
}

function SandboxWidening({ request, busy, problem, decide }: PartProps<SandboxWideningRequestView>): React.JSX.Element {
  return (
    <Card request={request} title={`Widen ${request.serverName}'s sandbox?`}>
      <WideningBody
        serverName={request.serverName}
        description={request.description}
        busy={busy}
        problem={problem}
        onDecide={(decision) => void decide({ action: decision === 'allow' ? 'allow-once' : 'deny' })}
      />
    </Card>
  );
}

/**
 * A tool call an MCP Apps view asks for (docs/user/mcp-apps.md#what-a-view-may-ask): who asked (the app, not the
 * model), what would run and why the policy asks. "Allow for this chat" counts for the app's calls of this tool only.
 */
function AppToolCall({ request, ...answering }: PartProps<AppToolCallView>): React.JSX.Element {
  return (
    <Card request={request} title={`Run ${request.toolName} from ${request.serverName}?`}>
      <p className="app-call-by">Requested by the app of {request.serverName}, not by the model.</p>
      <p className="muted small">Why it asks: {request.reason}</p>
      <pre className="tool-pre">{JSON.stringify(request.args, null, 2)}</pre>
      <Answers
        {...answering}
        choices={[
          { label: 'Allow once', tone: 'primary', decision: { action: 'allow-once' } },
          ...(request.heldElsewhere
            ? []
            : [
                {
                  label: 'Allow for this chat',
                  decision: { action: 'allow-chat' },
                  title: `The app of ${request.serverName} may call ${request.toolName} in this chat without asking, until you revoke it`,
                } satisfies Choice,
              ]),
          { label: 'Deny', tone: 'danger', decision: { action: 'deny' } },
        ]}
      />
    </Card>
  );
}

/** Which stage of a request an answer was for: a sampling request waits twice under one id. */
const stageOf = (request: ServerRequestView): string =>
  request.kind === 'sampling' ? `${request.id}-${request.stage}` : request.id;

const NO_OUTCOME: RequestOutcomeState = { problem: null, fieldProblems: [] };

const BADGE: Record<ServerRequestView['kind'], string> = {
  sampling: 'Sampling',
  elicitation: 'Elicitation',
  'sandbox-widening': 'Sandbox',
  'app-tool-call': 'App',
};

/** MCP's two ways to say no to an elicitation: decline (answered "no") and cancel (dismissed). */
const DECLINE_OR_CANCEL: Choice[] = [
  { label: 'Decline', decision: { action: 'decline' } },
  { label: 'Cancel', tone: 'danger', decision: { action: 'cancel' } },
];

function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return '';
  }
}
