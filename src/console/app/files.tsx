import { useEffect, useState } from 'preact/hooks';
import { type Api, type JsonObject, errorText } from './api.js';
import { DataTable, Messages, Pager } from './parts.js';

interface Listed {
  readonly filename: string;
  readonly url: string;
  readonly key: string;
  readonly size: number;
  readonly contentType: string;
  readonly lastModified: string;
}

const PAGE = 50;

/** The application's stored files, 50 a page in upload order, each openable and deletable. */
export function Files(props: { api: Api }) {
  const [files, setFiles] = useState<Listed[]>([]);
  // Keys the pages start after: [''] is the first page.
  const [starts, setStarts] = useState<string[]>(['']);
  const [next, setNext] = useState<string | null>(null);
  const [error, setError] = useState('');
  const [notice, setNotice] = useState('');
  const load = async (after: string) => {
    try {
      const reply: JsonObject = await props.api.request('GET', '/1/files', { query: { limit: String(PAGE), ...(after ? { after } : {}) } });
      setFiles((reply['results'] as unknown as Listed[]) ?? []);
      setNext(typeof reply['next'] === 'string' ? reply['next'] : null);
      setError('');
    } catch (failure) {
      setError(errorText(failure));
    }
  };
  useEffect(() => void load(''), []);
  const remove = async (file: Listed) => {
    if (!confirm(`Delete ${file.filename}?`)) return;
    try {
      await props.api.request('POST', '/2/cdnBatchDelete', { body: { upyun: [file.url] } });
      setNotice(`Deleted ${file.filename}.`);
      await load(starts.at(-1)!);
    } catch (failure) {
      setError(errorText(failure));
    }
  };
  return (
    <section class="content">
      <h2>Files</h2>
      <Messages error={error} notice={notice} />
      <DataTable columns={['name', 'type', 'bytes', 'stored']} actions>
        {files.map((file) => (
          <tr>
            <td>
              <a href={file.url} target="_blank" rel="noopener noreferrer">
                {file.filename}
              </a>
            </td>
            <td>{file.contentType}</td>
            <td>{file.size}</td>
            <td>{file.lastModified}</td>
            <td>
              <button type="button" aria-label={`Delete file ${file.filename}`} onClick={() => void remove(file)}>
                Delete
              </button>
            </td>
          </tr>
        ))}
      </DataTable>
      <Pager
        onPrevious={starts.length > 1 ? () => (setStarts(starts.slice(0, -1)), void load(starts.at(-2) ?? '')) : undefined}
        onNext={next !== null ? () => (setStarts([...starts, next]), void load(next)) : undefined}
      />
    </section>
  );
}
