import { createHmac, timingSafeEqual } from 'node:crypto';
import type { ExecutionContext } from 'ava';
import { listen } from '../helpers.ts';

/** One POST a receiver got. */
export interface Received {
  event: string;
  delivery: string;
  signature: string;
  body: string;
  json: Record<string, unknown> & { event: string };
}

/**
 * A webhook receiver on 127.0.0.1 for the test: it keeps every request and answers each with the next of
 * `statuses` (the last one once they run out; 204 when none are given).
 */
export async function webhookReceiver(t: ExecutionContext, statuses: number[] = [204]) {
  const received: Received[] = [];
  let answered = 0;
  const url = await listen(t, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString();
      received.push({
        event: String(req.headers['kurz-event']),
        delivery: String(req.headers['kurz-delivery']),
        signature: String(req.headers['kurz-signature']),
        body,
        json: JSON.parse(body) as Received['json'],
      });
      res.statusCode = statuses[Math.min(answered++, statuses.length - 1)] ?? 204;
      res.end(res.statusCode >= 400 ? 'receiver says no' : '');
    });
  });
  return { url: `${url}/hook`, received };
}

/** Verifies a Kurz-Signature header as the README tells receivers to: the time signed with the body. */
export function verifySignature(secret: string, header: string, body: string): { valid: boolean; t: number } {
  const parts = Object.fromEntries(header.split(',').map((p) => p.split('=') as [string, string]));
  const t = Number(parts['t']);
  const expected = createHmac('sha256', secret).update(`${parts['t']}.${body}`).digest();
  const given = Buffer.from(parts['v1'] ?? '', 'hex');
  return { valid: given.length === expected.length && timingSafeEqual(given, expected), t };
}
