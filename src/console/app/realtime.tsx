import { useEffect, useState } from 'preact/hooks';
import { type Api, errorText } from './api.js';
import { Messages } from './parts.js';

interface Connection {
  readonly user: string | null;
  readonly master: boolean;
  readonly subscriptions: ReadonlyArray<{ readonly id: string; readonly table: string; readonly action: string; readonly objectId?: string }>;
}

/** Realtime connections of the application on the instance that answers, with what each listens to. */
export function Realtime(props: { api: Api }) {
  const [connections, setConnections] = useState<Connection[] | null>(null);
  const [error, setError] = useState('');
  const load = async () => {
    try {
      setConnections(((await props.api.request('GET', '/1/realtime/connections'))['results'] as unknown as Connection[]) ?? []);
      setError('');
    } catch (failure) {
      setError(errorText(failure));
    }
  };
  useEffect(() => void load(), []);
  return (
    <section class="content">
      <h2>Realtime</h2>
      <p class="meta">Connections to the instance serving this console (each instance keeps its own).</p>
      <button type="button" onClick={() => void load()}>
        Refresh
      </button>
      <Messages error={error} />
      <p>{connections === null ? '…' : `${connections.length} connections`}</p>
      <ul class="connections">
        {(connections ?? []).map((connection) => (
          <li>
            {connection.master ? 'master key' : connection.user ? `user ${connection.user}` : 'anonymous'}:{' '}
            {connection.subscriptions.length === 0
              ? 'no subscriptions'
              : connection.subscriptions.map((s) => `${s.table} ${s.action}${s.objectId ? ` ${s.objectId}` : ''} (${s.id})`).join(', ')}
          </li>
        ))}
      </ul>
    </section>
  );
}
