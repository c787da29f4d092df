/** Messages of up to this many counted characters are billed as one. */
export const SINGLE_MESSAGE_LENGTH = 70;
/** Longer texts are split into parts of this many characters, each billed as one message. */
export const MULTIPART_LENGTH = 67;

/**
 * The billed length of an SMS: characters (Unicode code points, so `【` and `码` count 1) of the
 * filled text plus those of the signature (6 for the default `【svcb】`).
 *
 * @example countedLength('Your code is 123456', '【svcb】') // 25
 */
export function countedLength(text: string, signature: string): number {
  return [...text].length + [...signature].length;
}

/**
 * Messages billed for a counted length: up to 70 is 1; above 70, one per started 67 characters
 * (71..134 -> 2, 135 -> 3, 201 -> 3, 202 -> 4).
 */
export function messageCount(length: number): number {
  return length <= SINGLE_MESSAGE_LENGTH ? 1 : Math.ceil(length / MULTIPART_LENGTH);
}
