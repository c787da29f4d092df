/**
 * A small HTML page answered to a mailed link (verify, reset): its status, headers and markup. The
 * route hands it out as a raw response.
 */
export interface LinkPage {
  readonly status: number;
  readonly headers: Record<string, string>;
  readonly body: string;
}

const ESCAPES: Readonly<Record<string, string>> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Escapes text for HTML element content and quoted attribute values. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ESCAPES[c]!);
}

/**
 * Headers of every link page: no caching (the URL holds a secret), no referrer (it would leak the
 * token), no framing, no scripts; forms may only post back to the same origin.
 */
const PAGE_HEADERS: Readonly<Record<string, string>> = {
  'content-type': 'text/html; charset=utf-8',
  'cache-control': 'no-store',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
  'x-content-type-options': 'nosniff',
  'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'",
};

const STYLE =
  'body{font-family:system-ui,sans-serif;max-width:28rem;margin:4rem auto;padding:0 1rem;color:#222}' +
  'h1{font-size:1.4rem}label{display:block;margin:.8rem 0 .2rem}input{width:100%;padding:.5rem;box-sizing:border-box}' +
  'button{margin-top:1rem;padding:.5rem 1.2rem}.error{color:#b00020}';

/** A small self-contained HTML page. `bodyHtml` must already be escaped. */
export function htmlPage(status: number, title: string, bodyHtml: string): LinkPage {
  const html =
    `<!doctype html><html lang="en"><head><meta charset="utf-8">` +
    `<meta name="viewport" content="width=device-width,initial-scale=1"><title>${escapeHtml(title)}</title>` +
    `<style>${STYLE}</style></head><body><h1>${escapeHtml(title)}</h1>${bodyHtml}</body></html>`;
  return { status, headers: { ...PAGE_HEADERS }, body: html };
}

/** A page with one message paragraph. */
export function messagePage(status: number, title: string, message: string): LinkPage {
  return htmlPage(status, title, `<p>${escapeHtml(message)}</p>`);
}

/** The new-password form of a reset link; posts the token back with the new password. */
export function resetFormPage(status: number, appName: string, token: string, error?: string): LinkPage {
  const errorHtml = error ? `<p class="error">${escapeHtml(error)}</p>` : '';
  return htmlPage(
    status,
    `Choose a new ${appName} password`,
    `${errorHtml}<form method="post" action="resetPassword">` +
      `<input type="hidden" name="token" value="${escapeHtml(token)}">` +
      `<label for="password">New password</label>` +
      `<input id="password" name="password" type="password" autocomplete="new-password" required>` +
      `<label for="confirm">Repeat the new password</label>` +
      `<input id="confirm" name="confirm" type="password" autocomplete="new-password" required>` +
      `<button type="submit">Set password</button></form>`,
  );
}
