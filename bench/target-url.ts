/**
 * The target of the i-th seeded link. The seeder and the baseline both derive it from the line number in
 * the codes file, so the two servers answer with identical Location headers. About 90 characters: a
 * typical shortened URL is a long one.
 */
export function targetUrl(i: number): string {
  return `https://www.example.com/articles/${i}/how-we-benchmark-a-url-shortener?utm_source=kurz-bench`;
}
