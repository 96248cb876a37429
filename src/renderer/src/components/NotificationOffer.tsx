import { useState } from 'react';
import { notificationOfferDeclined, notificationPermission, useNotificationPermission } from '../state/attention';
import { useLocalFlag } from '../state/local-flag';

/**
 * Browser mode, the first time a call waits: offers notifications for calls that wait while the tab is hidden, and
 * says what will happen before the browser asks (docs/user/browser-mode.md#notifications). Made once:
 * "Not now" is kept; a browser that blocked them is told how to allow them.
 */
export function NotificationOffer({ waiting }: { waiting: number }): React.JSX.Element | null {
  const declined = useLocalFlag(notificationOfferDeclined);
  const [answered, setAnswered] = useState<'granted' | 'denied' | null>(null);
  if (answered === 'granted') {
    return (
      <div className="banner banner-info notification-offer" role="status">
        Notifications are on: when a tool call waits while this tab is in the background, your browser shows it.
        <button type="button" className="chat-link" onClick={() => setAnswered(null)}>
          Dismiss
        </button>
      </div>
    );
  }
  if (answered === 'denied') {
    return (
      <div className="banner banner-warning notification-offer" role="status">
        Your browser blocks notifications from this page. To have them, allow notifications in the browser&apos;s
        settings for this site.
        <button type="button" className="chat-link" onClick={() => notificationOfferDeclined.set()}>
          Dismiss
        </button>
      </div>
    );
  }
  // The browser's permission is read only once a call waits: the first screen does not wait for the browser process.
  if (declined || waiting === 0) return null;
  return <Offer onAnswer={setAnswered} />;
}

function Offer({ onAnswer }: { onAnswer: (answer: 'granted' | 'denied' | null) => void }): React.JSX.Element | null {
  const permission = useNotificationPermission();
  if (permission !== 'default') return null;
  return (
    <section className="banner banner-info notification-offer" aria-label="Notifications">
      <span>
        <strong>Don&apos;t miss a waiting call.</strong> Get a notification when a tool call waits for you while this
        tab is in the background? Your browser will ask you to allow it; the notification names the tool and its server,
        never the arguments.
      </span>
      <span className="notification-offer-actions">
        <button
          type="button"
          className="button button-primary"
          onClick={() =>
            void notificationPermission
              .request()
              .then((result) => onAnswer(result === 'granted' ? 'granted' : result === 'denied' ? 'denied' : null))
          }
        >
          Turn on notifications
        </button>
        <button type="button" className="button" onClick={() => notificationOfferDeclined.set()}>
          Not now
        </button>
      </span>
    </section>
  );
}
