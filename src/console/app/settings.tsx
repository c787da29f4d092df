import { useEffect, useState } from 'preact/hooks';
import { type Api, type JsonObject, errorText } from './api.js';
import { DataTable, Messages } from './parts.js';

interface Template {
  readonly name: string;
  readonly kind: string;
  readonly approved?: boolean;
  readonly text: string;
}

/**
 * The application's settings as the host configured them (read-only: they come from `createService`),
 * the SMS quota used and left, the status of a sent message by its smsId, and the captcha's limits.
 */
export function Settings(props: { api: Api }) {
  const [settings, setSettings] = useState<JsonObject | null>(null);
  const [quota, setQuota] = useState<JsonObject | null>(null);
  const [smsId, setSmsId] = useState('');
  const [status, setStatus] = useState('');
  const [error, setError] = useState('');
  useEffect(() => {
    props.api.request('GET', '/1/appSettings').then((reply) => setSettings(reply['settings'] as JsonObject), (failure: unknown) => setError(errorText(failure)));
    // No SMS transport configured answers a code: the quota line then says so.
    props.api.request('GET', '/1/smsQuota').then(setQuota, (failure: unknown) => setQuota({ error: errorText(failure) }));
  }, []);
  const lookUp = async (event: Event) => {
    event.preventDefault();
    try {
      const reply = await props.api.request('GET', `/1/querySms/${encodeURIComponent(smsId.trim())}`);
      setStatus(`${String(reply['sms_state'])}${reply['verify_state'] === true ? ', code verified' : ''}`);
    } catch (failure) {
      setStatus(errorText(failure));
    }
  };
  const sms = (settings?.['sms'] ?? {}) as JsonObject;
  const templates = (Array.isArray(sms['templates']) ? sms['templates'] : []) as unknown as Template[];
  const captcha = (settings?.['captcha'] ?? {}) as JsonObject;
  return (
    <section class="content">
      <h2>Settings</h2>
      <p class="meta">Set by the host in createService; change them there and restart.</p>
      <Messages error={error} />
      <h3>SMS</h3>
      <p>
        Quota: {quota === null ? '…' : typeof quota['error'] === 'string' ? quota['error'] : `${String(quota['used'])} used, ${String(quota['remaining'])} left`}
      </p>
      <DataTable columns={['template', 'kind', 'approved', 'text']}>
        {templates.map((template) => (
          <tr>
            <td>{template.name}</td>
            <td>{template.kind}</td>
            <td>{template.approved === false ? 'no' : 'yes'}</td>
            <td>{template.text}</td>
          </tr>
            ))}
      </DataTable>
      <form onSubmit={lookUp} class="filter">
        <label>
          Sent message (smsId)
          <input name="smsId" inputMode="numeric" value={smsId} onInput={(e) => setSmsId(e.currentTarget.value)} />
        </label>
        <button type="submit">Look up</button>
        {status && <output>{status}</output>}
      </form>
      <h3>Captcha</h3>
      <pre class="result">{JSON.stringify(captcha, null, 2)}</pre>
      <h3>Everything else</h3>
      <pre class="result">{settings ? JSON.stringify({ ...settings, sms: { ...sms, templates: undefined }, captcha: undefined }, null, 2) : '…'}</pre>
    </section>
  );
}
