import type { PolicyView } from '../../../../shared/approval';
import { organisationIdpWords } from '../../../../shared/identity-lock-words';
import { DefaultNote, LockNote, lockId } from './organisation';

/**
 * The identity providers the organisation's policy has HTTP servers sign in through (cross-app access,
 * docs/user/organisation-policy.md#oauth), on Settings → Approvals: for which servers, through what, locked or a
 * default. A secret is never on the page, only whether the organisation gives one.
 */
export function OrganisationIdpSection({ view }: { view: PolicyView }): React.JSX.Element | null {
  const entries = view.managed?.crossAppAccess ?? [];
  if (!view.managed || entries.length === 0) return null;
  return (
    <section className="settings-section" aria-labelledby="organisation-idp-title" data-testid="organisation-idps">
      <h3 id="organisation-idp-title">Sign-in through your organisation</h3>
      <p className="muted small">
        Your organisation&apos;s policy ({view.managed.file}) has these servers sign in through its identity provider
        (cross-app access), without a browser. Your ID token stays yours to give, on the server&apos;s form or with{' '}
        <span className="mono">workbench servers login NAME --id-token-stdin</span>. The first entry that names a server
        applies.
      </p>
      <ul className="rule-list" aria-label="Your organisation's identity providers">
        {entries.map((entry, index) => {
          const words = organisationIdpWords(entry);
          const id = lockId('organisation-idp', String(index));
          return (
            <li
              key={`idp-${index}`}
              className="rule-item is-managed"
              data-testid="organisation-idp-entry"
              {...(entry.locked ? { 'aria-describedby': id } : {})}
            >
              <span className="effect">Sign-in</span>
              <span className="rule-body">
                <span className="mono rule-text">{words.servers}</span>
                <span className="small">{words.signIn}</span>
                {!entry.locked && (
                  <span className="muted small">
                    A default: an identity provider you give a server takes its place there.
                  </span>
                )}
              </span>
              {entry.locked ? <LockNote id={id} /> : <DefaultNote />}
            </li>
          );
        })}
      </ul>
    </section>
  );
}
