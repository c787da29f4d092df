import { useState } from 'preact/hooks';
import { Api, type Credentials, errorText } from './api.js';
import { Messages } from './parts.js';

/** Master-key sign-in: checked with one master-only call before it is kept (sessionStorage, this tab only). */
export function Login(props: { api: string; brand: string; onSignIn: (credentials: Credentials) => void }) {
  const [applicationId, setApplicationId] = useState('');
  const [masterKey, setMasterKey] = useState('');
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);
  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError('');
    const credentials = { applicationId: applicationId.trim(), masterKey };
    try {
      await new Api(props.api, props.brand, credentials).request('GET', '/1/schemas');
      props.onSignIn(credentials);
    } catch (failure) {
      setError(errorText(failure) === 'unauthorized' ? 'Wrong application id or master key.' : errorText(failure));
    } finally {
      setBusy(false);
    }
  };
  return (
    <main class="login">
      <h1>svcbase console</h1>
      <form onSubmit={submit}>
        <label>
          Application id
          <input name="applicationId" autocomplete="username" required value={applicationId} onInput={(e) => setApplicationId(e.currentTarget.value)} />
        </label>
        <label>
          Master key
          <input name="masterKey" type="password" autocomplete="current-password" required value={masterKey} onInput={(e) => setMasterKey(e.currentTarget.value)} />
        </label>
        <button type="submit" disabled={busy}>
          Sign in
        </button>
        <Messages error={error} />
      </form>
      <p class="hint">The master key stays in this tab (sessionStorage) and is sent only to this server.</p>
    </main>
  );
}
