import { useEffect, useState } from 'react';
import { formatCountdown } from '../format';

/** "Times out in 4:59": a waiting call ends as a timeout (never as a denial) when nobody decides in time. */
export function Countdown({ expiresAt }: { expiresAt: number }): React.JSX.Element {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, []);
  const left = expiresAt - now;
  return (
    <span
      className={`countdown${left < 30_000 ? ' is-urgent' : ''}`}
      title="Nobody deciding by then ends this call as timed out"
      data-testid="countdown"
    >
      {left > 0 ? `Times out in ${formatCountdown(left)}` : 'Timing out…'}
    </span>
  );
}
