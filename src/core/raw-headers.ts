// Reading a request's headers from `req.rawHeaders` (name, value, name, value…) without `req.headers`, whose
// first use builds an object of every header: the redirect reads one or two and so skips that cost.

/** Whether the header name `name` is `lower` (lower case, same length), in any case. */
export function isHeader(name: string, lower: string): boolean {
  for (let i = 0; i < lower.length; i++) {
    let c = name.charCodeAt(i);
    if (c >= 65 && c <= 90) c += 32;
    if (c !== lower.charCodeAt(i)) return false;
  }
  return true;
}

/** The first value of the header `lower` (a lower-case name) in `rawHeaders`, as `req.headers` gives a single-valued one; '' when absent. */
export function rawHeader(rawHeaders: readonly string[], lower: string): string {
  return firstHeader(rawHeaders, lower) ?? '';
}

/** As `rawHeader`, but undefined when absent, as `req.headers` has it. */
export function firstHeader(rawHeaders: readonly string[], lower: string): string | undefined {
  for (let i = 0; i < rawHeaders.length; i += 2) {
    const name = rawHeaders[i]!;
    if (name.length === lower.length && isHeader(name, lower)) return rawHeaders[i + 1]!;
  }
  return undefined;
}
