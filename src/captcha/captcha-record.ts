/** What the store keeps for one pending captcha: the answer digest and the image rendered at issue. */
export interface CaptchaRecord {
  /** `CaptchaSecrets.answerDigest` of the token and the answer (keyed: useless without the secret). */
  readonly answer: string;
  /** The PNG sealed by `CaptchaSecrets.seal`. Rendered once, so every fetch of the image shows the same picture. */
  readonly png: string;
}

/** Serialises a record for the KvStore. */
export function encodeCaptchaRecord(record: CaptchaRecord): string {
  return JSON.stringify({ answer: record.answer, png: record.png });
}

/** Parses a stored record; null for anything malformed (treated as an unknown token). */
export function decodeCaptchaRecord(text: string): CaptchaRecord | null {
  try {
    const value: unknown = JSON.parse(text);
    if (typeof value !== 'object' || value === null) return null;
    const { answer, png } = value as Record<string, unknown>;
    return typeof answer === 'string' && typeof png === 'string' ? { answer, png } : null;
  } catch {
    return null;
  }
}
