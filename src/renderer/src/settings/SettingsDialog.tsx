import { lazy, Suspense, useEffect, useRef, useState } from 'react';
import type { WorkbenchApi } from '../../../shared/api';
import { CloseIcon } from '../components/icons';
import { ApprovalsPage } from './approvals/ApprovalsPage';
import { ProvidersPage } from './providers/ProvidersPage';
import { ServersPage } from './servers/ServersPage';
import { ShippingPage } from './shipping/ShippingPage';
import { ChartIcon, CheckShieldIcon, GearIcon, KeyIcon, ListIcon, SendIcon, ServerIcon } from '../components/icons';
import type { AuditFilters } from './audit/audit-filters';
import './settings.css';

// The audit viewer loads when its section is first shown.
const AuditPage = lazy(() => import('./audit/AuditPage').then((module) => ({ default: module.AuditPage })));
// The insights and their charting library (uPlot) load only when the section is opened.
const InsightsPage = lazy(() => import('./insights/InsightsPage').then((module) => ({ default: module.InsightsPage })));

export type SettingsSection = 'providers' | 'servers' | 'approvals' | 'audit' | 'insights' | 'shipping';

const SECTIONS: readonly { id: SettingsSection; label: string; icon: React.JSX.Element }[] = [
  { id: 'providers', label: 'Providers', icon: <KeyIcon /> },
  { id: 'servers', label: 'MCP servers', icon: <ServerIcon /> },
  { id: 'approvals', label: 'Approvals', icon: <CheckShieldIcon /> },
  { id: 'audit', label: 'Audit log', icon: <ListIcon /> },
  { id: 'insights', label: 'Insights', icon: <ChartIcon /> },
  { id: 'shipping', label: 'Audit shipping', icon: <SendIcon /> },
];

export interface SettingsDialogProps {
  api: WorkbenchApi;
  initialSection?: SettingsSection;
  onClose(): void;
}

/** Settings as one large modal <dialog>: sections on the left, the chosen page on the right. Escape closes it. */
export function SettingsDialog({ api, initialSection = 'providers', onClose }: SettingsDialogProps): React.JSX.Element {
  const dialog = useRef<HTMLDialogElement>(null);
  const [section, setSection] = useState<SettingsSection>(initialSection);
  /** The rows an Insights chart opened in the audit viewer (its filters), until the viewer is left. */
  const [auditFilters, setAuditFilters] = useState<AuditFilters | undefined>(undefined);
  const choose = (next: SettingsSection): void => {
    setSection(next);
    if (next !== 'audit') setAuditFilters(undefined);
  };

  useEffect(() => {
    const element = dialog.current;
    element?.showModal();
    return () => element?.close();
  }, []);

  const moveFocus = (event: React.KeyboardEvent<HTMLButtonElement>, index: number): void => {
    const step = event.key === 'ArrowDown' ? 1 : event.key === 'ArrowUp' ? -1 : 0;
    if (step === 0) return;
    event.preventDefault();
    const next = SECTIONS[(index + step + SECTIONS.length) % SECTIONS.length];
    if (!next) return;
    choose(next.id);
    document.getElementById(`settings-tab-${next.id}`)?.focus();
  };

  return (
    <dialog
      ref={dialog}
      className="settings-dialog"
      aria-labelledby="settings-title"
      data-testid="settings"
      onCancel={(event) => {
        event.preventDefault();
        onClose();
      }}
    >
      <div className="settings-layout">
        <aside className="settings-nav">
          <h1 id="settings-title" className="settings-title">
            <GearIcon size={16} /> Settings
          </h1>
          <div role="tablist" aria-orientation="vertical" aria-label="Settings sections">
            {SECTIONS.map((entry, index) => (
              <button
                key={entry.id}
                id={`settings-tab-${entry.id}`}
                type="button"
                role="tab"
                aria-selected={section === entry.id}
                aria-controls="settings-panel"
                tabIndex={section === entry.id ? 0 : -1}
                className={`settings-tab${section === entry.id ? ' is-selected' : ''}`}
                onClick={() => choose(entry.id)}
                onKeyDown={(event) => moveFocus(event, index)}
              >
                {entry.icon}
                {entry.label}
              </button>
            ))}
          </div>
        </aside>
        <section
          id="settings-panel"
          role="tabpanel"
          aria-labelledby={`settings-tab-${section}`}
          className="settings-panel"
        >
          {section === 'providers' && <ProvidersPage api={api} />}
          {section === 'servers' && <ServersPage api={api} />}
          {section === 'approvals' && <ApprovalsPage api={api} />}
          {section === 'audit' && (
            <Suspense fallback={<p className="muted">Loading…</p>}>
              <AuditPage key={JSON.stringify(auditFilters ?? null)} api={api} initialFilters={auditFilters} />
            </Suspense>
          )}
          {section === 'insights' && (
            <Suspense fallback={<p className="muted">Loading…</p>}>
              <InsightsPage
                api={api}
                onOpenRows={(filters) => {
                  setAuditFilters(filters);
                  setSection('audit');
                }}
                onOpenApprovals={() => choose('approvals')}
              />
            </Suspense>
          )}
          {section === 'shipping' && <ShippingPage api={api} />}
        </section>
        <button
          type="button"
          className="icon-button settings-close"
          aria-label="Close settings"
          title="Close (Esc)"
          onClick={onClose}
        >
          <CloseIcon size={16} />
        </button>
      </div>
    </dialog>
  );
}
