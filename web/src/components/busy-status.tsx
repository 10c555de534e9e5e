import { useEffect, useState } from 'preact/hooks';

/** Whole seconds since `since` (ms since epoch), ticking once a second; 0 when not given. */
export function useElapsed(since: number | null | undefined): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (!since) return;
    setNow(Date.now());
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, [since]);
  return since ? Math.max(0, Math.floor((now - since) / 1000)) : 0;
}

/**
 * A live status line for slow work ("Reading the PDF… 12 s"), so nobody stares at greyed buttons:
 * past `slowAfter` seconds it adds `slowNote`, which says why it takes long.
 */
export function BusyStatus({
  since,
  label,
  slowNote,
  slowAfter = 4,
  className = 'status busy',
}: {
  since: number;
  label: string;
  slowNote?: string;
  slowAfter?: number;
  className?: string;
}) {
  const seconds = useElapsed(since);
  return (
    <p class={className} role="status" aria-live="polite">
      <span class="spinner" aria-hidden="true" />
      {label} <span class="elapsed">{seconds} s</span>
      {slowNote && seconds >= slowAfter ? <span class="slow-note"> {slowNote}</span> : null}
    </p>
  );
}
