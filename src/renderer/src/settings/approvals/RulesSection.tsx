import { useState, useSyncExternalStore } from 'react';
import { rememberedStore } from '../../state/remembered';
import {
  RuleEffectSchema,
  type ApprovalRule,
  type PolicyUpdate,
  type PolicyView,
  type PolicyWarning,
  type RuleEffect,
} from '../../../../shared/approval';
import { Field, Modal, Notice, errorText } from '../common';
import { fieldProblems } from '../field-problems';
import { TrashIcon } from '../../components/icons';
import { ArrowDownIcon, ArrowUpIcon } from '../../components/icons';
import { EMPTY_RULE, describeRule, formToDraft, ruleFieldProblems, ruleToForm, type RuleForm } from './rule-draft';
import { LockNote, lockId } from './organisation';
import { identityLockSettings, identityMatcherWords } from '../../../../shared/identity-lock-words';

const EFFECT_LABELS: Record<RuleEffect, string> = { deny: 'Deny', ask: 'Ask', allow: 'Allow' };

interface Props {
  view: PolicyView;
  update(change: PolicyUpdate): Promise<PolicyView>;
}

/** The rules editor: the organisation's rules (read-only), then the user's, each checked by main on save. */
export function RulesSection({ view, update }: Props): React.JSX.Element {
  const rules = view.policy.rules;
  const remembered = useSyncExternalStore(rememberedStore.subscribe, rememberedStore.getSnapshot);
  const rememberedRule = remembered?.action.kind === 'rule' ? remembered.action.id : null;
  const [editing, setEditing] = useState<ApprovalRule | 'new' | null>(null);
  const [error, setError] = useState<string | null>(null);
  const findings = ruleFindingsById(view);

  const apply = async (change: PolicyUpdate): Promise<void> => {
    setError(null);
    try {
      await update(change);
    } catch (failure) {
      setError(errorText(failure));
    }
  };
  const move = (index: number, step: -1 | 1): void => {
    const order = rules.map((rule) => rule.id);
    const [id] = order.splice(index, 1);
    if (id === undefined) return;
    order.splice(index + step, 0, id);
    void apply({ rules: { order } });
  };

  return (
    <section className="settings-section" aria-labelledby="rules-title">
      <div className="section-title-row">
        <h3 id="rules-title">Rules</h3>
        <button type="button" className="button button-small" onClick={() => setEditing('new')}>
          Add rule
        </button>
      </div>
      <p className="muted small">
        Patterns on server, tool and arguments. Deny beats ask beats allow; within one effect the first rule in the list
        decides. Globs are path-like (<span className="mono">**</span> spans <span className="mono">/</span>).
      </p>
      {error && <Notice kind="error">{error}</Notice>}
      {view.managed &&
        view.managed.rules.length +
          (view.managed.locked.rules?.length ?? 0) +
          (view.managed.locked.serversByIdentity?.length ?? 0) >
          0 && (
          <div className="managed-rules">
            <h4 className="small-heading">From your organisation ({view.managed.file}) — cannot be changed here</h4>
            <ul className="rule-list" aria-label="Your organisation's rules">
              {[...view.managed.rules, ...(view.managed.locked.rules ?? [])].map((rule) => (
                <li key={rule.id} className="rule-item is-managed" aria-describedby={lockId('rule', rule.id)}>
                  <span className={`effect effect-${rule.effect}`}>{EFFECT_LABELS[rule.effect]}</span>
                  <span className="mono rule-text">
                    {describeRule(rule)}
                    {rule.serverIdentity && ` on servers running ${identityMatcherWords(rule.serverIdentity)}`}
                  </span>
                  {rule.note && <span className="muted small">{rule.note}</span>}
                  <LockNote id={lockId('rule', rule.id)} />
                </li>
              ))}
              {(view.managed.locked.serversByIdentity ?? []).map((lock, index) => (
                <li
                  key={`identity-${index}`}
                  className="rule-item is-managed"
                  data-testid="identity-lock"
                  aria-describedby={lockId('identity-lock', String(index))}
                >
                  <span className="effect">Lock</span>
                  <span className="rule-body">
                    <span className="mono rule-text">servers running {identityMatcherWords(lock.serverIdentity)}</span>
                    <span className="small">{identityLockSettings(lock).join('; ')}</span>
                  </span>
                  <LockNote id={lockId('identity-lock', String(index))} />
                </li>
              ))}
            </ul>
          </div>
        )}
      {rules.length === 0 ? (
        <p className="muted">No rules yet.</p>
      ) : (
        <ol className="rule-list" aria-label="Your rules">
          {rules.map((rule, index) => (
            <li
              key={rule.id}
              className={`rule-item${rule.id === rememberedRule ? ' is-remembered' : ''}`}
              aria-label={`Rule ${index + 1}: ${rule.id}`}
            >
              <span className="rule-number muted">#{index + 1}</span>
              <span className={`effect effect-${rule.effect}`}>{EFFECT_LABELS[rule.effect]}</span>
              <span className="rule-body">
                <span className="mono rule-text">{describeRule(rule)}</span>
                <span className="muted small">
                  {rule.id}
                  {rule.note && ` — ${rule.note}`}
                </span>
                {findings.get(rule.id)?.map((finding) => (
                  <span key={finding.kind} className="rule-finding small" data-testid={`rule-finding-${rule.id}`}>
                    {finding.message}
                  </span>
                ))}
              </span>
              <span className="rule-actions">
                <button
                  type="button"
                  className="icon-button"
                  aria-label={`Move rule ${rule.id} up`}
                  disabled={index === 0}
                  onClick={() => move(index, -1)}
                >
                  <ArrowUpIcon size={14} />
                </button>
                <button
                  type="button"
                  className="icon-button"
                  aria-label={`Move rule ${rule.id} down`}
                  disabled={index === rules.length - 1}
                  onClick={() => move(index, 1)}
                >
                  <ArrowDownIcon size={14} />
                </button>
                <button
                  type="button"
                  className="button button-small"
                  onClick={() => setEditing(rule)}
                  aria-label={`Edit rule ${rule.id}`}
                >
                  Edit
                </button>
                <button
                  type="button"
                  className="icon-button danger"
                  aria-label={`Delete rule ${rule.id}`}
                  onClick={() => void apply({ rules: { remove: [rule.id] } })}
                >
                  <TrashIcon size={14} />
                </button>
              </span>
            </li>
          ))}
        </ol>
      )}
      {editing && (
        <RuleEditor
          initial={editing === 'new' ? EMPTY_RULE : ruleToForm(editing)}
          isNew={editing === 'new'}
          onClose={() => setEditing(null)}
          onSave={async (form) => {
            const draft = formToDraft(form);
            if (editing === 'new') await update({ rules: { add: [draft] } });
            else await update({ rules: { update: [{ ...draft, id: editing.id }] } });
            setEditing(null);
          }}
        />
      )}
    </section>
  );
}

/** The rules main found never decide (docs/user/approvals.md, "Testing your rules"), by rule. */
function ruleFindingsById(view: PolicyView): Map<string, PolicyWarning[]> {
  const byRule = new Map<string, PolicyWarning[]>();
  for (const warning of view.warnings) {
    if (warning.ruleId === undefined) continue;
    byRule.set(warning.ruleId, [...(byRule.get(warning.ruleId) ?? []), warning]);
  }
  return byRule;
}

interface EditorProps {
  initial: RuleForm;
  isNew: boolean;
  onClose(): void;
  /** Rejects with the refusal; the editor shows each reason under its field. */
  onSave(form: RuleForm): Promise<void>;
}

function RuleEditor({ initial, isNew, onClose, onSave }: EditorProps): React.JSX.Element {
  const [form, setForm] = useState<RuleForm>(initial);
  const [problems, setProblems] = useState<Record<string, string>>({});
  const [summary, setSummary] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const set = (patch: Partial<RuleForm>): void => setForm((current) => ({ ...current, ...patch }));
  const setMatcher = (index: number, patch: Partial<RuleForm['args'][number]>): void =>
    setForm((current) => ({
      ...current,
      args: current.args.map((matcher, at) => (at === index ? { ...matcher, ...patch } : matcher)),
    }));

  const save = async (): Promise<void> => {
    setBusy(true);
    setProblems({});
    setSummary(null);
    try {
      await onSave(form);
    } catch (failure) {
      const found = ruleFieldProblems(fieldProblems(failure));
      const known = new Set([
        'effect',
        'server',
        'tool',
        'note',
        'id',
        ...form.args.flatMap((_, index) => [`args.${index}.pointer`, `args.${index}.match`, `args.${index}.value`]),
      ]);
      setProblems(found);
      const unknown = Object.entries(found).filter(([field]) => !known.has(field));
      if (unknown.length > 0)
        setSummary(unknown.map(([field, message]) => (field ? `${field}: ${message}` : message)).join('; '));
      setBusy(false);
    }
  };

  return (
    <Modal
      title={isNew ? 'Add a rule' : `Edit rule ${initial.id ?? ''}`}
      wide
      onClose={onClose}
      testId="rule-editor"
      actions={
        <>
          <button type="button" className="button" onClick={onClose} disabled={busy}>
            Cancel
          </button>
          <button type="submit" form="rule-form" className="button button-primary" disabled={busy}>
            Save rule
          </button>
        </>
      }
    >
      <form
        noValidate
        id="rule-form"
        className="form form-grid"
        autoComplete="off"
        onSubmit={(event) => {
          event.preventDefault();
          void save();
        }}
      >
        <Field label="Effect" problem={problems.effect}>
          {(props) => (
            <select
              {...props}
              value={form.effect}
              onChange={(event) => set({ effect: RuleEffectSchema.parse(event.target.value) })}
            >
              <option value="deny">Deny — never run</option>
              <option value="ask">Ask — always ask me</option>
              <option value="allow">Allow — run without asking</option>
            </select>
          )}
        </Field>
        <Field label="Note (optional)" problem={problems.note}>
          {(props) => <input {...props} value={form.note} onChange={(event) => set({ note: event.target.value })} />}
        </Field>
        <Field label="Server (glob)" hint="The server's name, e.g. Files or * for any." problem={problems.server}>
          {(props) => (
            <input
              {...props}
              className="mono"
              value={form.server}
              onChange={(event) => set({ server: event.target.value })}
            />
          )}
        </Field>
        <Field label="Tool (glob)" hint="e.g. write_* or {read,list}_*" problem={problems.tool}>
          {(props) => (
            <input
              {...props}
              className="mono"
              value={form.tool}
              onChange={(event) => set({ tool: event.target.value })}
            />
          )}
        </Field>
        <fieldset className="span-2 conditions">
          <legend>Conditions on the arguments (all must match)</legend>
          {form.args.length === 0 && (
            <p className="muted small">None: the rule applies to every call of the matching tools.</p>
          )}
          {form.args.map((matcher, index) => (
            <div key={index} className="condition-row">
              <Field label="Pointer" problem={problems[`args.${index}.pointer`]}>
                {(props) => (
                  <input
                    {...props}
                    className="mono"
                    placeholder="/path"
                    value={matcher.pointer}
                    onChange={(event) => setMatcher(index, { pointer: event.target.value })}
                  />
                )}
              </Field>
              <Field label="Match" problem={problems[`args.${index}.match`]}>
                {(props) => (
                  <select
                    {...props}
                    value={matcher.match}
                    onChange={(event) =>
                      setMatcher(index, { match: event.target.value as RuleForm['args'][number]['match'] })
                    }
                  >
                    <option value="glob">glob</option>
                    <option value="regex">regex</option>
                    <option value="equals">equals</option>
                    <option value="one-of">one of</option>
                  </select>
                )}
              </Field>
              <Field label="Value" problem={problems[`args.${index}.value`]}>
                {(props) => (
                  <input
                    {...props}
                    className="mono"
                    value={matcher.value}
                    onChange={(event) => setMatcher(index, { value: event.target.value })}
                  />
                )}
              </Field>
              <button
                type="button"
                className="icon-button danger condition-remove"
                aria-label={`Remove condition ${index + 1}`}
                onClick={() =>
                  setForm((current) => ({ ...current, args: current.args.filter((_, at) => at !== index) }))
                }
              >
                <TrashIcon size={14} />
              </button>
            </div>
          ))}
          <button
            type="button"
            className="button button-small"
            onClick={() => set({ args: [...form.args, { pointer: '/path', match: 'glob', value: '' }] })}
          >
            Add condition
          </button>
        </fieldset>
        {summary && (
          <div className="span-2">
            <Notice kind="error">{summary}</Notice>
          </div>
        )}
      </form>
    </Modal>
  );
}
