import { useState } from 'preact/hooks';
import { type Api, type Json, type JsonObject, allRecords, bulk, errorText } from './api.js';
import type { TableSchema } from './tables.js';
import { csvCell, csvRecord, parseCsv } from './values.js';

/** Saves text as a file the browser downloads (a link to a blob, clicked once). */
function download(name: string, type: string, text: string): void {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const link = document.createElement('a');
  link.href = url;
  link.download = name;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

/**
 * A table's rows out and in, from the page: the rows matching the filter exported as JSON (as the
 * API answers them) or CSV (one column per field, typed values as JSON, Dates as their text);
 * a JSON array or a CSV file imported. Exported JSON comes back with its objectIds, times and ACLs
 * (`POST /1/import/:table`, existing ids skipped); other rows are created (`POST /1/batch`), each
 * CSV cell read as its column's type.
 */
export function TransferPanel(props: { api: Api; table: string; schema: TableSchema | undefined; where: Json; onNotice: (notice: string, error?: boolean) => void; onImported: () => void }) {
  const { api, table } = props;
  const [busy, setBusy] = useState(false);
  const typeOf = (column: string) => props.schema?.fields[column]?.type;

  const exportRows = async (format: 'json' | 'csv') => {
    setBusy(true);
    try {
      const rows = await allRecords(api, table, props.where);
      if (format === 'json') download(`${table}.json`, 'application/json', `${JSON.stringify(rows, null, 2)}\n`);
      else {
        const columns = [...new Set(['objectId', ...Object.keys(props.schema?.fields ?? {}), ...rows.flatMap((row) => Object.keys(row))])].filter((c) => typeOf(c) !== 'Relation');
        const lines = [columns.map((c) => csvCell(c)).join(','), ...rows.map((row) => columns.map((c) => csvCell(row[c])).join(','))];
        download(`${table}.csv`, 'text/csv', `${lines.join('\r\n')}\r\n`);
      }
      props.onNotice(`Exported ${rows.length} rows as ${format.toUpperCase()}.`);
    } catch (failure) {
      props.onNotice(errorText(failure), true);
    } finally {
      setBusy(false);
    }
  };

  const importFile = async (file: File) => {
    setBusy(true);
    try {
      const text = await file.text();
      let records: JsonObject[];
      if (/\.csv$/i.test(file.name) || file.type === 'text/csv') {
        const [header, ...rows] = parseCsv(text);
        if (!header) throw new Error('the CSV file is empty');
        records = rows.map((cells, i) => {
          try {
            return csvRecord(header, cells, typeOf);
          } catch (failure) {
            throw new Error(`line ${i + 2}: ${errorText(failure)}`);
          }
        });
      } else {
        const parsed = JSON.parse(text) as Json;
        const list = Array.isArray(parsed) ? parsed : typeof parsed === 'object' && parsed !== null && Array.isArray(parsed['results']) ? parsed['results'] : null;
        if (!list || !list.every((item) => typeof item === 'object' && item !== null && !Array.isArray(item))) throw new Error('the JSON file must be an array of records');
        records = list as JsonObject[];
      }
      const exported = records.length > 0 && records.every((record) => typeof record['objectId'] === 'string' && typeof record['createdAt'] === 'string');
      if (exported) {
        let inserted = 0;
        let existing = 0;
        for (let start = 0; start < records.length; start += 1000) {
          const reply = await api.request('POST', `/1/import/${encodeURIComponent(table)}`, { body: { records: records.slice(start, start + 1000) } });
          inserted += Number(reply['inserted'] ?? 0);
          existing += Number(reply['existing'] ?? 0);
        }
        props.onNotice(`Imported ${inserted} rows${existing > 0 ? `; ${existing} were there already` : ''}.`);
      } else {
        const result = await bulk(api, table, records.map((record) => ({ method: 'POST' as const, body: record })));
        props.onNotice(result.failed.length === 0 ? `Imported ${result.done} rows.` : `Imported ${result.done} rows; row ${result.failed[0]!.index + 1} refused: ${result.failed[0]!.error} (${result.failed.length} refused).`, result.failed.length > 0);
      }
      props.onImported();
    } catch (failure) {
      props.onNotice(`Import: ${errorText(failure)}`, true);
    } finally {
      setBusy(false);
    }
  };

  return (
    <section class="panel" aria-label="Import and export">
      <h3>Import and export</h3>
      <div class="actions">
        <button type="button" disabled={busy} onClick={() => void exportRows('json')}>
          Export JSON
        </button>
        <button type="button" disabled={busy} onClick={() => void exportRows('csv')}>
          Export CSV
        </button>
      </div>
      <label>
        Import a JSON or CSV file
        <input
          type="file"
          name="importFile"
          accept=".json,.csv,application/json,text/csv"
          disabled={busy}
          onChange={(e) => {
            const file = e.currentTarget.files?.[0];
            e.currentTarget.value = '';
            if (file) void importFile(file);
          }}
        />
      </label>
      <p class="meta">The export follows the filter. Exported JSON imports with its ids, times and ACLs; other rows are created.</p>
    </section>
  );
}
