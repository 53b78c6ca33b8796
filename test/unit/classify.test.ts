import test from 'ava';
import { UA } from '../fixtures/user-agents.ts';
import {
  acceptedLanguages,
  cachedBotCheck,
  cachedClassifier,
  cachedPreviewCheck,
  classifyUserAgent,
  isPreviewFetcher,
  inAppBrowser,
  isBot,
  primaryLanguage,
  referrerHost,
  type Device,
  type InAppBrowser,
} from '../../src/visits/classify.ts';

const BROWSERS: Array<[string, string, string, Device]> = [
  [
    'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36',
    'Chrome',
    'Windows',
    'desktop',
  ],
  [
    'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36',
    'Chrome',
    'macOS',
    'desktop',
  ],
  ['Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36', 'Chrome', 'Linux', 'desktop'],
  [
    'Mozilla/5.0 (Linux; Android 10; K) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36',
    'Chrome',
    'Android',
    'mobile',
  ],
  [
    'Mozilla/5.0 (Linux; Android 10; K) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36',
    'Chrome',
    'Android',
    'tablet',
  ],
  [
    'Mozilla/5.0 (X11; CrOS x86_64 14541.0.0) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36',
    'Chrome',
    'Chrome OS',
    'desktop',
  ],
  [
    'Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) CriOS/131.0.6778.73 Mobile/15E148 Safari/604.1',
    'Chrome',
    'iOS',
    'mobile',
  ],
  ['Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:133.0) Gecko/20100101 Firefox/133.0', 'Firefox', 'Windows', 'desktop'],
  ['Mozilla/5.0 (X11; Ubuntu; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0', 'Firefox', 'Linux', 'desktop'],
  ['Mozilla/5.0 (Android 14; Mobile; rv:133.0) Gecko/133.0 Firefox/133.0', 'Firefox', 'Android', 'mobile'],
  [
    'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Safari/605.1.15',
    'Safari',
    'macOS',
    'desktop',
  ],
  [
    'Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1',
    'Safari',
    'iOS',
    'mobile',
  ],
  [
    'Mozilla/5.0 (iPad; CPU OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1',
    'Safari',
    'iOS',
    'tablet',
  ],
  [
    'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36 Edg/131.0.0.0',
    'Microsoft Edge',
    'Windows',
    'desktop',
  ],
  [
    'Mozilla/5.0 (Linux; Android 14; SAMSUNG SM-S921B) AppleWebKit/537.36 (KHTML, like Gecko) SamsungBrowser/26.0 Chrome/122.0.0.0 Mobile Safari/537.36',
    'Samsung Internet for Android',
    'Android',
    'mobile',
  ],
  [
    'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0.0.0 Safari/537.36 OPR/115.0.0.0',
    'Opera',
    'Windows',
    'desktop',
  ],
  [
    'Mozilla/5.0 (SMART-TV; Linux; Tizen 6.0) AppleWebKit/537.36 (KHTML, like Gecko) SamsungBrowser/4.0 Chrome/76.0.3809.146 TV Safari/537.36',
    'Samsung Internet for Android',
    'Tizen',
    'tv',
  ],
];
for (const [ua, browser, os, device] of BROWSERS) {
  test(`a browser: ${browser} on ${os} (${device}) from ${ua.slice(13, 60)}`, (t) => {
    t.deepEqual(classifyUserAgent(ua), { bot: null, browser, os, device });
    t.false(isBot(ua));
  });
}

const BOTS: Array<[string, string]> = [
  ['Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)', 'Slack'],
  ['Slack-ImgProxy (+https://api.slack.com/robots)', 'Slack'],
  ['Mozilla/5.0 (compatible; Discordbot/2.0; +https://discordapp.com)', 'Discord'],
  ['WhatsApp/2.23.20.0 A', 'WhatsApp'],
  ['WhatsApp/2.2349.52 i', 'WhatsApp'],
  ['TelegramBot (like TwitterBot)', 'Telegram'],
  ['facebookexternalhit/1.1 (+http://www.facebook.com/externalhit_uatext.php)', 'Facebook'],
  ['Facebot', 'Facebook'],
  ['meta-externalagent/1.1 (+https://developers.facebook.com/docs/sharing/webmasters/crawler)', 'Facebook'],
  ['Twitterbot/1.0', 'X'],
  ['LinkedInBot/1.0 (compatible; Mozilla/5.0; Apache-HttpClient +http://www.linkedin.com)', 'LinkedIn'],
  ['Mozilla/5.0 (Windows NT 6.1; WOW64) SkypeUriPreview Preview/0.5 skype-url-preview@microsoft.com', 'Microsoft Teams'],
  [
    'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/112.0.0.0 Safari/537.36 Edg/112.0.1722.48 MicrosoftPreview/2.0 +https://aka.ms/MicrosoftPreview',
    'Microsoft Teams',
  ],
  [
    'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_5) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/13.1.1 Safari/605.1.15 (Applebot/0.1; +http://www.apple.com/go/applebot)',
    'Apple',
  ],
  [
    'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_11_1) AppleWebKit/601.2.4 (KHTML, like Gecko) Version/9.0.1 Safari/601.2.4 facebookexternalhit/1.1 Facebot Twitterbot/1.0',
    'Apple',
  ],
  ['http.rb/5.1.1 (Mastodon/4.2.1; +https://mastodon.social/)', 'Mastodon'],
  ['Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)', 'Google'],
  [
    'Mozilla/5.0 (Linux; Android 6.0.1; Nexus 5X Build/MMB29P) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.6778.69 Mobile Safari/537.36 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)',
    'Google',
  ],
  ['Mozilla/5.0 (compatible; Google-InspectionTool/1.0;)', 'Google'],
  ['Mozilla/5.0 (compatible; GoogleOther)', 'Google'],
  [
    'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm) Chrome/116.0.1938.76 Safari/537.36',
    'Bing',
  ],
  ['DuckDuckBot/1.1; (+http://duckduckgo.com/duckduckbot.html)', 'DuckDuckGo'],
  ['Mozilla/5.0 (compatible; YandexBot/3.0; +http://yandex.com/bots)', 'Yandex'],
  ['Mozilla/5.0 (compatible; Baiduspider/2.0; +http://www.baidu.com/search/spider.html)', 'Baidu'],
  ['Mozilla/5.0+(compatible; UptimeRobot/2.0; http://www.uptimerobot.com/)', 'UptimeRobot'],
  ['Pingdom.com_bot_version_1.4_(http://www.pingdom.com/)', 'Pingdom'],
  ['Mozilla/5.0 (Windows NT 6.2; WOW64) AppleWebKit/537.4 (KHTML, like Gecko) Chrome/98 Safari/537.4 (StatusCake)', 'StatusCake'],
  [
    'Better Uptime Bot Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/74.0.3729.169 Safari/537.36',
    'Better Stack',
  ],
  [
    'Better Stack Better Uptime Bot Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0.0.0 Safari/537.36',
    'Better Stack',
  ],
  ['Site24x7', 'Site24x7'],
  ['Datadog/Synthetics', 'Datadog Synthetics'],
  [
    'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36 DatadogSynthetics',
    'Datadog Synthetics',
  ],
  ['Uptime-Kuma/1.23.16', 'Uptime Kuma'],
  // isbot alone takes this one for Chrome on Linux
  [
    'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36 Uptime-Kuma/2.0.0',
    'Uptime Kuma',
  ],
  ['HetrixTools.COM Uptime Monitoring Bot. https://hetrix.tools/uptime-monitoring-bot.html', 'HetrixTools'],
  ['curl/8.5.0', 'curl'],
  ['Wget/1.21.4', 'Wget'],
  ['python-requests/2.31.0', 'python-requests'],
  ['Go-http-client/1.1', 'Go-http-client'],
  ['Mozilla/5.0 (compatible; AhrefsBot/7.0; +http://ahrefs.com/robot/)', 'AhrefsBot'],
  ['Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/120.0.0.0 Safari/537.36', 'HeadlessChrome'],
  ['Mozilla/5.0 (compatible; crawler)', 'Other bot'],
  ['', 'No user agent'],
  [' \t ', 'No user agent'],
];
for (const [ua, name] of BOTS) {
  test(`a bot: ${name} from ${JSON.stringify(ua.slice(0, 60))}`, (t) => {
    t.deepEqual(classifyUserAgent(ua), { bot: name, browser: null, os: null, device: null });
    t.true(isBot(ua));
  });
}

const HOSTILE = ['Mozilla/5.0 (', 'a', '(', 'Mozilla/5.0 (Windows NT 10.0; ', 'Chrome/1.'];
for (const unit of HOSTILE) {
  test(`a 10 kB user agent of ${JSON.stringify(unit)} is classified by its first 512 characters, quickly`, (t) => {
    const ua = unit.repeat(Math.ceil(10_240 / unit.length));
    const started = performance.now();
    const kind = classifyUserAgent(ua);
    const took = performance.now() - started;
    t.deepEqual(kind, classifyUserAgent(ua.slice(0, 512)));
    t.true(took < 50, `took ${took.toFixed(1)} ms`);
  });
}

test('only the first 512 characters of a user agent count', (t) => {
  const ua = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:133.0) Gecko/20100101 Firefox/133.0 ' + ' '.repeat(512) + 'Googlebot/2.1';
  t.deepEqual(classifyUserAgent(ua), { bot: null, browser: 'Firefox', os: 'Windows', device: 'desktop' });
  t.false(isBot(ua));
});

test('a user agent that only echoes its own first product names no browser', (t) => {
  t.deepEqual(classifyUserAgent('Mozilla/5.0 (Windows NT 10.0; Win64; x64) SomeApp/1.0 (build 7)'), {
    bot: null,
    browser: null,
    os: 'Windows',
    device: 'desktop',
  });
});

test('the cached classifier answers a repeated user agent with the very same object', (t) => {
  const classify = cachedClassifier(10);
  const ua = BROWSERS[0]![0];
  const first = classify(ua);
  t.deepEqual(first, classifyUserAgent(ua));
  t.is(classify(ua), first);
  t.not(classify(BROWSERS[1]![0]), first);
});

test('the cached classifier keeps at most `size` user agents', (t) => {
  const classify = cachedClassifier(2);
  const first = classify('curl/8.5.0');
  classify('Wget/1.21.4');
  t.is(classify('curl/8.5.0'), first, 'still cached');
  classify('Wget/1.21.4');
  classify('python-requests/2.31.0');
  const again = classify('curl/8.5.0');
  t.not(again, first, 'evicted by two newer user agents');
  t.deepEqual(again, first);
});

test('the cached classifier keys by the first 512 characters', (t) => {
  const classify = cachedClassifier(10);
  const prefix = 'curl/8.5.0 ' + 'x'.repeat(600);
  t.is(classify(prefix + 'one'), classify(prefix + 'two'));
});

const REFERRERS: Array<[string, string | null]> = [
  ['https://www.example.com/some/page?q=1', 'example.com'],
  ['https://WWW.Example.COM/', 'example.com'],
  ['http://news.ycombinator.com/item?id=1', 'news.ycombinator.com'],
  ['https://www2.example.com/', 'www2.example.com'],
  ['https://wwwexample.com/', 'wwwexample.com'],
  ['https://sub.www.example.com/', 'sub.www.example.com'],
  ['https://example.com:8443/x', 'example.com'],
  ['http://192.0.2.1/', '192.0.2.1'],
  ['http://[2001:db8::1]:8080/', '[2001:db8::1]'],
  ['https://bücher.example/', 'xn--bcher-kva.example'],
  ['  https://example.com/  ', 'example.com'],
  ['', null],
  ['not a url', null],
  ['/relative/path', null],
  ['android-app://com.slack/', null],
  ['ftp://example.com/', null],
  ['javascript:alert(1)', null],
  ['https://', null],
];
for (const [referrer, host] of REFERRERS) {
  test(`the referrer host of ${JSON.stringify(referrer)} is ${host}`, (t) => {
    t.is(referrerHost(referrer), host);
  });
}

const LANGUAGES: Array<[string, string | null]> = [
  ['de-CH,de;q=0.9,en;q=0.8', 'de'],
  ['en-US', 'en'],
  ['EN-GB', 'en'],
  ['fr', 'fr'],
  ['zh-Hant-TW', 'zh'],
  ['fil-PH', 'fil'],
  ['en;q=0.5, ja;q=0.9', 'ja'],
  ['en;q=0.8, ja;q=0.8', 'en'],
  ['en ; q = 0.4 , pt-BR ; q = 0.7', 'pt'],
  ['en;q=0, de;q=0.1', 'de'],
  ['da, en-gb;q=0.8, en;q=0.7', 'da'],
  ['*', null],
  ['*;q=1, de;q=0.5', 'de'],
  ['en;q=0', null],
  ['', null],
  ['   ', null],
  ['english', null],
  ['en_US', null],
  ['x-pig-latin', null],
  ['i-klingon', null],
  ['e', null],
  ['12-34', null],
  ['en;q=abc, de;q=0.2', 'de'],
  ['en;q=1.5, de;q=0.2', 'de'],
  [',,,;;;', null],
];
for (const [header, language] of LANGUAGES) {
  test(`the primary language of ${JSON.stringify(header)} is ${language}`, (t) => {
    t.is(primaryLanguage(header), language);
  });
}

test('the cached bot check answers as isBot, for a repeated, an evicted and an overlong user agent', (t) => {
  const looksLikeBot = cachedBotCheck(2);
  const browser = BROWSERS[0]![0];
  const long = 'Mozilla/5.0 ' + 'x'.repeat(600) + ' Googlebot/2.1';
  for (const ua of ['curl/8.5.0', browser, '', 'Wget/1.21.4', 'curl/8.5.0', browser, long, long]) {
    t.is(looksLikeBot(ua), isBot(ua), JSON.stringify(ua.slice(0, 40)));
  }
  t.true(looksLikeBot('curl/8.5.0'));
  t.false(looksLikeBot(browser));
});

const IN_APP: Array<[keyof typeof UA, InAppBrowser | null]> = [
  ['wechatIos', 'wechat'],
  ['wechatAndroid', 'wechat'],
  ['instagramIos', 'instagram'],
  ['facebookIos', 'facebook'],
  ['tiktokAndroid', 'tiktok'],
  ['tiktokIos', 'tiktok'],
  ['lineIos', 'line'],
  ['xIos', 'x'],
  ['snapchatIos', 'snapchat'],
  ['iphoneSafari', null],
  ['androidChromePhone', null],
  ['ipadSafari', null],
  ['desktopChromeWindows', null],
  ['desktopFirefoxLinux', null],
  ['desktopChromeMac', null],
  ['facebookPreviewBot', null],
];
for (const [name, app] of IN_APP) {
  test(`${name} is ${app === null ? 'no in-app browser' : `the in-app browser of ${app}`}`, (t) => {
    t.is(inAppBrowser(UA[name]), app);
  });
}

test('in-app browsers are still read as browsers on a phone', (t) => {
  for (const name of ['wechatIos', 'wechatAndroid', 'instagramIos', 'facebookIos', 'tiktokAndroid', 'tiktokIos', 'lineIos'] as const) {
    const kind = classifyUserAgent(UA[name]);
    t.is(kind.bot, null, name);
    t.is(kind.device, 'mobile', name);
  }
});

test('the marks of bots and of similar words are no in-app browser', (t) => {
  for (const ua of [
    'TelegramBot (like TwitterBot)',
    'Twitterbot/1.0',
    'LinkedInBot/1.0 (compatible; Mozilla/5.0; Apache-HttpClient +http://www.linkedin.com)',
    'Pinterestbot/1.0',
    'Mozilla/5.0 (X11; Linux x86_64) Gecko/20100101 Firefox/133.0 Online/1.0',
  ]) {
    t.is(inAppBrowser(ua), null, ua);
  }
});

const ACCEPTED: Array<[string, number, string[]]> = [
  ['de-AT,de;q=0.9,en;q=0.8', 0.9, ['de-at', 'de']],
  ['de-AT,de;q=0.9,en;q=0.8', 0.5, ['de-at', 'de', 'en']],
  ['en;q=0, fr', 0, ['fr']],
  ['*, de;q=0.95', 0.9, ['de']],
  ['pt_BR', 0.9, ['pt-br']],
  ['zh-Hant-TW;q=1.0', 1, ['zh-hant-tw']],
  ['en;q=1.5, de;q=abc', 0, []],
  ['', 0.9, []],
  [',,,;;;', 0.9, []],
];
for (const [header, min, languages] of ACCEPTED) {
  test(`the languages of ${JSON.stringify(header)} at quality ${min} or more are ${JSON.stringify(languages)}`, (t) => {
    t.deepEqual(acceptedLanguages(header, min), languages);
  });
}

test('an Accept-Language header of thousands of entries is read only for its first 32', (t) => {
  const header = Array.from({ length: 5000 }, (_, i) => `x${String.fromCharCode(97 + (i % 26))}`).join(',');
  t.is(acceptedLanguages(header, 0.9).length, 32);
});

test('link-preview fetchers of chat apps and social networks are told apart from search engines, monitors and people', (t) => {
  const fetchers = [UA.slackbot, UA.twitterbot, UA.facebookPreviewBot, UA.whatsapp, UA.telegramBot, UA.discordbot, UA.linkedinBot];
  for (const ua of fetchers) t.true(isPreviewFetcher(ua), ua);
  const others = [
    UA.googlebot,
    'UptimeRobot/2.0; http://www.uptimerobot.com/',
    'curl/8.5.0',
    '',
    UA.iphoneSafari,
    UA.wechatIos,
    UA.instagramIos,
  ];
  for (const ua of others) t.false(isPreviewFetcher(ua), ua);
  const cached = cachedPreviewCheck(2);
  t.true(cached(UA.slackbot));
  t.true(cached(UA.slackbot), 'from the cache');
  t.false(cached(UA.desktopChromeWindows));
});
