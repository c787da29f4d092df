/**
 * Reads the credential headers of every accepted brand. `X-Svc-Application-Id` and
 * `X-Bmob-Application-Id` are the same header under two brands; header names are case-insensitive
 * (adapters hand them over in lower case).
 */
export interface CredentialHeaders {
  applicationId?: string;
  restApiKey?: string;
  masterKey?: string;
  sessionToken?: string;
  secretKey?: string;
  timestamp?: string;
  nonce?: string;
  sdkVersion?: string;
  signature?: string;
}

const SUFFIXES: ReadonlyArray<[keyof CredentialHeaders, string]> = [
  ['applicationId', 'application-id'],
  ['restApiKey', 'rest-api-key'],
  ['masterKey', 'master-key'],
  ['sessionToken', 'session-token'],
  ['secretKey', 'secret-key'],
  ['timestamp', 'safe-timestamp'],
  ['nonce', 'noncestr-key'],
  ['sdkVersion', 'sdk-version'],
  ['signature', 'safe-sign'],
];

/** Precomputed lower-case header names per field, for the accepted brands. */
export interface BrandHeaderNames {
  readonly fields: ReadonlyArray<readonly [keyof CredentialHeaders, readonly string[]]>;
  /** Every header name a CORS preflight must allow. */
  readonly allHeaders: readonly string[];
}

export function brandHeaderNames(brands: readonly string[]): BrandHeaderNames {
  const prefixes = brands.map((b) => `x-${b.toLowerCase()}-`);
  const fields = SUFFIXES.map(([field, suffix]) => [field, prefixes.map((p) => p + suffix)] as const);
  const allHeaders = [...fields.flatMap(([, names]) => names), ...prefixes.map((p) => `${p}sdk-type`)];
  return { fields, allHeaders };
}

/** Picks the credential headers of the accepted brands; empty values count as absent. */
export function readCredentials(
  headers: Readonly<Record<string, string | undefined>>,
  names: BrandHeaderNames,
): CredentialHeaders {
  const out: CredentialHeaders = {};
  for (const [field, candidates] of names.fields) {
    for (const name of candidates) {
      const value = headers[name];
      if (value !== undefined && value !== '') {
        out[field] = value;
        break;
      }
    }
  }
  return out;
}
