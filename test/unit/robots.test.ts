import test from 'ava';
import { robotsOf, type CrawlableLink } from '../../src/links/robots.ts';

const AT = 1_000_000;
const link = (code: string, startsAt: number | null = null, expiresAt: number | null = null): CrawlableLink => ({
  code,
  startsAt,
  expiresAt,
});

const CASES: Array<[string, CrawlableLink[], string[], number | null]> = [
  ['no crawlable link: everything disallowed, right until a link changes', [], [], null],
  ['links allowed in code order', [link('zeta'), link('Alpha'), link('beta')], ['Alpha', 'beta', 'zeta'], null],
  ['a link that has started is allowed', [link('a', AT)], ['a'], null],
  ['a link waiting for its start is left out until then', [link('a', AT + 5)], [], AT + 5],
  ['a listed link that will expire makes the file right until then', [link('a', null, AT + 7)], ['a'], AT + 7],
  ['an expired link is left out', [link('a', null, AT)], [], null],
  ['the soonest change counts', [link('a', AT + 9), link('b', null, AT + 3), link('c', AT + 4, AT + 8)], ['b'], AT + 3],
];

for (const [name, links, allowed, until] of CASES) {
  test(name, (t) => {
    const robots = robotsOf(links, AT);
    t.is(robots.text, `User-agent: *\n${allowed.map((code) => `Allow: /${code}\n`).join('')}Disallow: /\n`);
    t.is(robots.until, until);
  });
}
