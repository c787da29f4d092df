/** Regenerates docs/errors.md from the code table: `npm run docs:errors`. A test keeps them in step. */
import { writeFileSync } from 'node:fs';
import { ERROR_CODES } from '../src/core/error-codes.js';

const rows = Object.entries(ERROR_CODES).map(
  ([name, e]) => `| ${e.code} | ${e.status} | \`${name}\` | ${e.message.replace(/\|/g, '\\|')} |`,
);
const doc = `# Error codes

Every client-facing error is \`{ "code": number, "error": string }\` with the HTTP status below.
A coded error always travels with a 4xx status, never a 5xx: the official SDK's axios transport turns
any 5xx into "Request failed with status code N" and drops the body. A failure of something the
request depends on (the SMS provider, the mail server, a cloud function that does not answer) is 424.
Authentication failures are the exception: 401 \`{"error":"unauthorized"}\` without a code, exactly as
the hosted service answers (the reason is logged at debug level). Valid keys without the master key on
a master-only route or operation are not an authentication failure: 403 / 11006 everywhere. Unexpected failures are 500
\`{"error":"internal server error"}\` and are logged with their stack; no stack reaches the client.

Codes below 11000 are the hosted service's own numbers. Conditions it leaves unnamed use the svcbase
block 11000-11999; those numbers are stable. \`%s\` marks where the message carries a detail.

This page is generated from \`src/core/error-codes.ts\` by \`npm run docs:errors\`.

| code | HTTP | name | message |
|---|---|---|---|
${rows.join('\n')}
`;
writeFileSync(new URL('../docs/errors.md', import.meta.url), doc);
