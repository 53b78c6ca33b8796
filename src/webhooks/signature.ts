import { createHmac } from 'node:crypto';

/** The header that carries a delivery's signature. */
export const SIGNATURE_HEADER = 'Kurz-Signature';

/**
 * The signature header's value for `body` sent at `unixSeconds`: `t=UNIX,v1=HEX`, HEX being the HMAC-SHA256,
 * keyed with the hook's secret, of `t + "." + body`. The time is signed with the body, so a receiver that
 * refuses an old `t` refuses a replayed delivery too.
 */
export function signatureOf(secret: string, body: string, unixSeconds: number): string {
  const mac = createHmac('sha256', secret).update(`${unixSeconds}.${body}`).digest('hex');
  return `t=${unixSeconds},v1=${mac}`;
}
