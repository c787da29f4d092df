/** A page's outcome lines: an error announced as an alert, a success as a status (screen readers read both). */
export function Messages(props: { error?: string; notice?: string }) {
  return (
    <>
      {props.error && (
        <p role="alert" class="error">
          {props.error}
        </p>
      )}
      {props.notice && (
        <p role="status" class="notice">
          {props.notice}
        </p>
      )}
    </>
  );
}

/** A scrollable table with one header cell per column and, with `actions`, a last unlabelled column for row buttons. */
export function DataTable(props: { columns: ReadonlyArray<string | preact.JSX.Element>; actions?: boolean; children: preact.ComponentChildren }) {
  return (
    <div class="scroll">
      <table>
        <thead>
          <tr>
            {props.columns.map((column) => (
              <th scope="col">{column}</th>
            ))}
            {props.actions && (
              <th scope="col">
                <span class="visually-hidden">Actions</span>
              </th>
            )}
          </tr>
        </thead>
        <tbody>{props.children}</tbody>
      </table>
    </div>
  );
}

/** Previous and Next buttons of a paged list, with what is shown between them. */
export function Pager(props: { onPrevious?: (() => void) | undefined; onNext?: (() => void) | undefined; children?: preact.ComponentChildren }) {
  return (
    <nav class="pager" aria-label="Pages">
      <button type="button" disabled={!props.onPrevious} onClick={() => props.onPrevious?.()}>
        Previous
      </button>
      {props.children}
      <button type="button" disabled={!props.onNext} onClick={() => props.onNext?.()}>
        Next
      </button>
    </nav>
  );
}
