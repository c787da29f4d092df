import type { DeliveryReport } from '../transport.js';

/**
 * Parses a Tencent Cloud SMS delivery-status callback: a JSON array of
 * `{ sid, report_status: "SUCCESS"|"FAIL", errmsg, description, mobile, nationcode, user_receive_time }`.
 * `sid` is the `SerialNo` SendSms returned. Entries it cannot read are skipped.
 */
export function parseTencentDeliveryReports(body: unknown): DeliveryReport[] {
  const items = Array.isArray(body) ? body : [body];
  const reports: DeliveryReport[] = [];
  for (const item of items) {
    if (typeof item !== 'object' || item === null) continue;
    const { sid, report_status: status, errmsg } = item as Record<string, unknown>;
    if (typeof sid !== 'string' || (status !== 'SUCCESS' && status !== 'FAIL')) continue;
    reports.push({ providerId: sid, state: status, ...(typeof errmsg === 'string' ? { detail: errmsg } : {}) });
  }
  return reports;
}
