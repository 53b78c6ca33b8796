// How YOURLS' yourls-api.php writes an answer, so that its clients read kurz's unchanged: the same status
// (statusCode, else errorCode, else 200), the same content types, JSON as PHP's json_encode writes it and XML
// as the array-to-xml library YOURLS uses writes it.

/** A value of a YOURLS answer: text, a number, or a nested record (in YOURLS' key order). */
export type YourlsValue = string | number | boolean | null | YourlsRecord;
export interface YourlsRecord {
  readonly [key: string]: YourlsValue;
}

/** An answer before it is written: its fields in YOURLS' order, and what `format=simple` prints. */
export interface YourlsAnswer {
  fields: YourlsRecord;
  simple?: string | undefined;
}

/** What is sent: status, Content-Type and body. */
export interface YourlsResponse {
  status: number;
  type: string;
  body: string;
}

/** A JSONP callback YOURLS accepts: a name of `[a-zA-Z0-9_$.]`, and no `\uXXXX` escape smuggled in. */
const CALLBACK = /^[a-zA-Z0-9_$.]+$/;
const UNICODE_ESCAPE = /\\?u[0-9a-fA-F]{4}/;

/** The control characters array-to-xml drops from text (tab included; line feed and carriage return kept). */
// eslint-disable-next-line no-control-regex
const XML_DROPPED = /[\x00-\x09\x0B\x0C\x0E-\x1F\x7F]/g;

/**
 * The answer in `format`: `json`, `jsonp` (wrapped in the `callback` field's name; an invalid one is a 400),
 * `xml`, or anything else as `simple` (the bare text), as YOURLS treats an unknown format.
 */
export function writeYourls(format: string, answer: YourlsAnswer): YourlsResponse {
  const { fields } = answer;
  const status = statusOf(fields);
  switch (format) {
    case 'jsonp': {
      const type = 'application/javascript; charset=utf-8';
      const callback = typeof fields['callback'] === 'string' ? fields['callback'] : undefined;
      if (callback !== undefined && (!CALLBACK.test(callback) || UNICODE_ESCAPE.test(callback)))
        return { status: 400, type, body: phpJson({ errorCode: '400', error: 'Invalid callback parameter' }) };
      return { status, type, body: `${callback ?? ''}(${phpJson(fields)})` };
    }
    case 'json':
      return { status, type: 'application/json; charset=utf-8', body: phpJson(fields) };
    case 'xml':
      return { status, type: 'application/xml; charset=utf-8', body: xmlOf(fields) };
    default:
      return { status, type: 'text/plain; charset=utf-8', body: answer.simple ?? '' };
  }
}

/** The HTTP status YOURLS sends: the answer's statusCode, else its errorCode, else 200. */
function statusOf(fields: YourlsRecord): number {
  const code = fields['statusCode'] ?? fields['errorCode'];
  const status = Number(code ?? 200);
  return Number.isInteger(status) && status >= 200 && status <= 599 ? status : 200;
}

/** JSON as PHP's json_encode writes it by default: `/` escaped as `\/`, every non-ASCII character as `\uXXXX`. */
export function phpJson(value: YourlsValue): string {
  return JSON.stringify(value)
    .replaceAll('/', '\\/')
    .replace(/[\u0080-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** XML as YOURLS writes it: a `root` element holding one element per field, nested records nested. */
export function xmlOf(fields: YourlsRecord): string {
  return `<?xml version="1.0" encoding="UTF-8"?>\n<root>${elements(fields)}</root>\n`;
}

function elements(record: YourlsRecord): string {
  let xml = '';
  for (const [key, value] of Object.entries(record)) {
    const name = key.replaceAll(' ', '_');
    const inner = value !== null && typeof value === 'object' ? elements(value) : xmlText(value);
    xml += inner === '' ? `<${name}/>` : `<${name}>${inner}</${name}>`;
  }
  return xml;
}

/** A scalar as PHP turns it into text (true "1", false and null ""), escaped as libxml escapes text. */
function xmlText(value: string | number | boolean | null): string {
  const text = value === true ? '1' : value === false || value === null ? '' : String(value);
  return text.replace(XML_DROPPED, '').replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;').replaceAll('\r', '&#13;');
}
