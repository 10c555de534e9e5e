import { useState } from 'preact/hooks';
import { ApiError, messageOf, storeKey } from '../lib/api';

/** Asks for an API key, checks it against the service, and keeps it in this browser. */
export function SignIn({ onSignedIn, notice }: { onSignedIn: (key: string) => void; notice: string | null }) {
  const [key, setKey] = useState('');
  const [error, setError] = useState<string | null>(notice);
  const [busy, setBusy] = useState(false);

  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    const candidate = key.trim();
    try {
      const response = await fetch('/api/projects', { headers: { 'x-alexandria-api-key': candidate } });
      if (!response.ok) {
        const body = (await response.json().catch(() => ({}))) as { error?: { message?: string } };
        throw new ApiError(
          body.error?.message ?? `${response.status} ${response.statusText}`,
          response.status,
        );
      }
      storeKey(candidate);
      onSignedIn(candidate);
    } catch (failure) {
      setError(
        failure instanceof TypeError ? 'The service cannot be reached. Is it running?' : messageOf(failure),
      );
    } finally {
      setBusy(false);
    }
  };

  return (
    <main class="sign-in" id="main">
      <h1>Alexandria</h1>
      <p>Search papers and patents, read them with their figures, ask them questions, and keep projects.</p>
      <form onSubmit={submit} class="stack">
        <label for="api-key">API key</label>
        <input
          id="api-key"
          type="password"
          autoComplete="current-password"
          required
          value={key}
          aria-describedby="api-key-help"
          aria-invalid={error ? true : undefined}
          onInput={(event) => setKey(event.currentTarget.value)}
        />
        <p id="api-key-help" class="meta">
          Printed by the first <code>npm start</code>, or made with <code>npx alexandria keys create</code>.
          It stays in this browser.
        </p>
        {error ? (
          <p class="error" role="alert">
            {error}
          </p>
        ) : null}
        <button type="submit" class="primary" disabled={busy || !key.trim()}>
          {busy ? 'Checking…' : 'Sign in'}
        </button>
      </form>
    </main>
  );
}
