/** Where one notification goes: a browser's Web Push subscription, or an FCM registration token. */
export type PushTarget =
  | { readonly kind: 'web'; readonly subscription: WebPushSubscription }
  | { readonly kind: 'fcm'; readonly token: string };

/** A browser's `PushSubscription.toJSON()`. */
export interface WebPushSubscription {
  readonly endpoint: string;
  readonly keys: { readonly p256dh: string; readonly auth: string };
}

/**
 * What became of one delivery: `sent`; `invalid` when the provider says the token or subscription is
 * gone for good (the installation is then deleted); `failed` for anything else (kept, counted).
 */
export type PushOutcome = { readonly outcome: 'sent' } | { readonly outcome: 'invalid' | 'failed'; readonly reason: string };

/** Delivers to one kind of target (the push feature picks the transport by the installation's kind). */
export interface PushTransport {
  readonly kind: PushTarget['kind'];
  /** `data` is the push's `data` object. Never throws: failures are outcomes. */
  send(target: PushTarget, data: Readonly<Record<string, unknown>>): Promise<PushOutcome>;
}

/** Bounded reads of a provider's error body. */
export async function readErrorText(response: Response, limit = 2048): Promise<string> {
  try {
    return (await response.text()).slice(0, limit);
  } catch {
    return '';
  }
}
