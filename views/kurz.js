// kurz's only script, and optional: every page works without it. It turns on the copy buttons, which
// are hidden until then (a button that cannot work is not shown), the UTM builder's preview, times in the
// viewer's time zone, the link list's filters on change, its rows as links and its bulk form's selection.
/* global navigator, window, document, setTimeout, clearTimeout, URL, URLSearchParams, FormData, location, Event */
'use strict';

async function copyText(text) {
  if (navigator.clipboard && window.isSecureContext) return navigator.clipboard.writeText(text);
  // Plain http on another host has no clipboard API: copy through a selected, off-screen text area.
  const area = document.createElement('textarea');
  area.value = text;
  area.setAttribute('readonly', '');
  area.className = 'offscreen';
  document.body.append(area);
  area.select();
  const ok = document.execCommand('copy');
  area.remove();
  if (!ok) throw new Error('copy refused');
}

for (const button of document.querySelectorAll('button[data-copy]')) {
  const status = document.getElementById(button.getAttribute('aria-describedby') || '');
  // Its label may end in words for screen readers alone ("Copy short URL of abc"): kept as they are.
  const label = [...button.childNodes];
  let timer;
  button.hidden = false;
  button.addEventListener('click', async () => {
    clearTimeout(timer);
    try {
      await copyText(button.dataset.copy);
      button.dataset.state = 'copied';
      button.replaceChildren('Copied');
      if (status) status.textContent = 'Copied to the clipboard.';
    } catch {
      button.dataset.state = 'failed';
      if (status) status.textContent = 'Could not copy; select the text and copy it yourself.';
    }
    timer = setTimeout(() => {
      button.replaceChildren(...label);
      delete button.dataset.state;
      if (status) status.textContent = '';
    }, 4000);
  });
}

// The UTM builder's preview: the long URL as src/links/utm.ts will add the values to it on saving (the
// server decides; this only shows). The same rules: trimmed values, empty ones left out, a parameter of
// the same name dropped, the rest of the query and the fragment kept, values percent-encoded.
const UTM_FIELDS = ['utm_source', 'utm_medium', 'utm_campaign', 'utm_term', 'utm_content'];

function parsed(text) {
  try {
    return new URL(text);
  } catch {
    return null;
  }
}

function pairName(pair) {
  const name = pair.split('=', 1)[0];
  try {
    return decodeURIComponent(name.replaceAll('+', ' '));
  } catch {
    return name;
  }
}

function withUtm(url, added) {
  const hash = url.indexOf('#');
  const beforeHash = hash === -1 ? url : url.slice(0, hash);
  const fragment = hash === -1 ? '' : url.slice(hash);
  const mark = beforeHash.indexOf('?');
  const base = mark === -1 ? beforeHash : beforeHash.slice(0, mark);
  const query = mark === -1 ? '' : beforeHash.slice(mark + 1);
  const names = new Set(added.map(([name]) => name));
  const kept = query.split('&').filter((pair) => pair !== '' && !names.has(pairName(pair)));
  const pairs = [...kept, ...added.map(([name, value]) => `${name}=${encodeURIComponent(value)}`)];
  return `${base}?${pairs.join('&')}${fragment}`;
}

for (const builder of document.querySelectorAll('details[data-utm]')) {
  const form = builder.closest('form');
  const output = builder.querySelector('output');
  const update = () => {
    const added = UTM_FIELDS.map((name) => [name, form.elements[name].value.trim()]).filter(([, value]) => value !== '');
    const url = form.elements.url.value.trim();
    output.parentElement.hidden = added.length === 0;
    const target = parsed(url) && parsed(withUtm(url, added));
    output.value = target ? target.href : '(type the full long URL above, starting with https://)';
  };
  form.addEventListener('input', update);
  update();
}

// The link list's filters apply as soon as one changes (the Show button does it without JavaScript); a
// multiple select and the search wait for the button (or Enter). Either way the URL keeps only what differs
// from the defaults, so that it reads well as a bookmark.
const ownOrder = (sort) => (sort === 'created' || sort === 'visits' ? 'desc' : 'asc');

function filterUrl(form) {
  const data = new FormData(form);
  const defaults = { tagMode: 'any', sort: 'created', order: ownOrder(data.get('sort') || 'created') };
  const params = new URLSearchParams();
  for (const [name, value] of data) if (value !== '' && defaults[name] !== value) params.append(name, value);
  // "All the tags" means something with several only.
  if (data.getAll('tag').length < 2) params.delete('tagMode');
  const action = form.getAttribute('action');
  return params.size === 0 ? action : `${action}?${params}`;
}

for (const form of document.querySelectorAll('form[data-autosubmit]')) {
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    location.assign(filterUrl(form));
  });
  form.addEventListener('change', (event) => {
    const field = event.target;
    if ((field.tagName === 'SELECT' && field.multiple) || field.type === 'search') return;
    // Another sort starts in its own order: the newest and the most visited first, text from A.
    if (field.name === 'sort' && form.elements.order) form.elements.order.value = ownOrder(field.value);
    location.assign(filterUrl(form));
  });
}

// A stats page's period applies as soon as a preset is chosen, and custom days once both are set (the Show
// button does it without JavaScript). Dates typed mean a custom period; a preset drops them from the URL.
for (const form of document.querySelectorAll('form[data-period]')) {
  const { period, from, to } = form.elements;
  const apply = () => {
    const params = new URLSearchParams();
    for (const [name, value] of new FormData(form)) {
      if (value === '') continue;
      if ((name === 'from' || name === 'to') && period.value !== 'custom') continue;
      params.append(name, value);
    }
    location.assign(`${form.getAttribute('action')}?${params}`);
  };
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    apply();
  });
  period.addEventListener('change', () => {
    if (period.value !== 'custom') apply();
    else from.focus();
  });
  for (const field of [from, to])
    field.addEventListener('change', () => {
      if (from.value === '' || to.value === '') return;
      period.value = 'custom';
      apply();
    });
}

// Times in the viewer's own time zone with how far away they are ("3 hours ago", "in 66 days"); the UTC time
// the page was sent with stays on hover. Without JavaScript the pages show UTC, and say so. A day alone (a
// datetime without a time) is a UTC day and stays as it is.
// [unit, from how far away it is used, its length in seconds]: days up to 100 ("in 66 days"), then months.
const RELATIVE_UNITS = [
  ['year', 2 * 365 * 86400, 365 * 86400],
  ['month', 100 * 86400, 30 * 86400],
  ['day', 86400, 86400],
  ['hour', 3600, 3600],
  ['minute', 60, 60],
  ['second', 0, 1],
];

function howFar(at, now) {
  const seconds = (at - now) / 1000;
  const [unit, , size] = RELATIVE_UNITS.find(([, from]) => Math.abs(seconds) >= from);
  return new Intl.RelativeTimeFormat(undefined, { numeric: 'auto' }).format(Math.round(seconds / size), unit);
}

const localTime = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });
// An hour of a table by the hour (data-time="hour"): its weekday and time, which say enough in a day's rows;
// the current one ("this-hour") keeps its words.
const localHour = new Intl.DateTimeFormat(undefined, { weekday: 'short', hour: 'numeric', minute: '2-digit' });
for (const time of document.querySelectorAll('time[datetime]')) {
  const iso = time.getAttribute('datetime');
  const at = new Date(iso);
  if (!iso.includes('T') || Number.isNaN(at.getTime())) continue;
  time.title = time.textContent;
  const hour = time.dataset.time;
  if (hour === 'hour' || hour === 'this-hour') {
    time.classList.add('local');
    if (hour === 'hour') time.textContent = localHour.format(at);
    continue;
  }
  // The time and its hint each unbroken; a narrow cell puts the hint on a line of its own.
  const when = document.createElement('span');
  when.textContent = localTime.format(at);
  const far = document.createElement('span');
  far.textContent = `(${howFar(at, Date.now())})`;
  time.classList.add('local');
  time.replaceChildren(when, ' ', far);
}

// A datetime field marked data-local-time holds UTC as the server sends and reads it; with this script the
// person sees and types their own time (the label says which zone), converted back to UTC as the form is
// sent. Its presets (1, 7, 30 days) fill it from now.
const pad = (n) => String(n).padStart(2, '0');
const localValue = (date) =>
  `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}T${pad(date.getHours())}:${pad(date.getMinutes())}`;

for (const field of document.querySelectorAll('input[data-local-time]')) {
  const zone = Intl.DateTimeFormat().resolvedOptions().timeZone;
  const label = document.querySelector(`label[for="${field.id}"]`);
  if (label && label.firstChild) label.firstChild.textContent = label.firstChild.textContent.replace('(UTC)', `(your time, ${zone})`);
  const hint = document.getElementById(`${field.id}-hint`);
  if (hint) hint.textContent = hint.textContent.replace(/^Date and time in UTC[^.]*\./, 'Date and time where you are.');
  if (field.value !== '') {
    const at = new Date(`${field.value}Z`);
    if (!Number.isNaN(at.getTime())) field.value = localValue(at);
  }
  field.form.addEventListener('submit', () => {
    if (field.value === '') return;
    const at = new Date(field.value);
    if (!Number.isNaN(at.getTime())) field.value = at.toISOString().slice(0, 16);
  });
  const presets = document.querySelector(`[data-presets-for="${field.id}"]`);
  if (!presets) continue;
  presets.hidden = false;
  for (const button of presets.querySelectorAll('button[data-days]')) {
    button.addEventListener('click', () => {
      field.value = localValue(new Date(Date.now() + Number(button.dataset.days) * 86400000));
      field.dispatchEvent(new Event('input', { bubbles: true }));
    });
  }
}

// A link to a part of the page that sits in a folded <details> (the link page's edit form) opens it.
// Chromium does this by itself on navigation; a click on a same-page link and other browsers need it.
function openFoldedTarget() {
  const target = location.hash.length > 1 ? document.getElementById(decodeURIComponent(location.hash.slice(1))) : null;
  const fold = target && target.closest('details');
  if (!fold || fold.open) return;
  fold.open = true;
  target.scrollIntoView();
}
window.addEventListener('hashchange', openFoldedTarget);
openFoldedTarget();

// The link list: a click anywhere in a row that is not one of its controls opens the link's page (the code
// stays the real link, for the keyboard and for a new tab); a click that ends a text selection does not.
const CONTROLS = 'a, button, input, select, textarea, label, summary, details, .pick';
for (const row of document.querySelectorAll('tr[data-href]')) {
  row.classList.add('clickable');
  row.addEventListener('click', (event) => {
    if (event.target.closest(CONTROLS) || String(window.getSelection()) !== '') return;
    if (event.ctrlKey || event.metaKey) window.open(row.dataset.href, '_blank', 'noopener');
    else location.assign(row.dataset.href);
  });
}

// A row's QR popover (a <details>, which needs no script) closes on Escape, or on a click elsewhere; one at a time.
const popovers = [...document.querySelectorAll('details.qr-pop')];
const closePopovers = (except) => {
  for (const pop of popovers) if (pop !== except && pop.open) pop.open = false;
};
document.addEventListener('click', (event) => closePopovers(event.target.closest('details.qr-pop')));
document.addEventListener('keydown', (event) => {
  if (event.key !== 'Escape') return;
  const open = popovers.find((pop) => pop.open);
  if (!open) return;
  open.open = false;
  open.querySelector('summary').focus();
});

// The bulk form: a box in the heading ticks every row of the page (without JavaScript, a link renders the page
// ticked), the hint counts the selection, and Delete asks in a dialog (without JavaScript, on a page).
for (const form of document.querySelectorAll('form[data-bulk]')) {
  const boxes = [...form.querySelectorAll('input[name="link"]')];
  const all = form.querySelector('input[data-select-all]');
  const hint = form.querySelector('[data-bulk-count]');
  const update = () => {
    const picked = boxes.filter((box) => box.checked).length;
    for (const box of boxes) box.closest('tr').classList.toggle('picked', box.checked);
    if (all) {
      all.checked = picked > 0 && picked === boxes.length;
      all.indeterminate = picked > 0 && picked < boxes.length;
    }
    if (hint) hint.textContent = picked === 0 ? 'Tick the links below, then:' : `${picked} ${picked === 1 ? 'link' : 'links'} selected:`;
  };
  for (const part of form.querySelectorAll('[data-no-script]')) part.hidden = true;
  if (all) {
    all.hidden = false;
    all.addEventListener('change', () => {
      for (const box of boxes) box.checked = all.checked;
      update();
    });
  }
  for (const box of boxes) box.addEventListener('change', update);
  update();

  const dialog = document.querySelector('dialog[data-bulk-confirm]');
  form.addEventListener('submit', (event) => {
    const button = event.submitter;
    const picked = boxes.filter((box) => box.checked).length;
    // No selection: the server's answer says so.
    if (!dialog || !button || button.value !== 'delete' || form.elements.confirmed || picked === 0) return;
    event.preventDefault();
    dialog.querySelector('[data-count]').textContent = `${picked} ${picked === 1 ? 'link' : 'links'}`;
    dialog.returnValue = '';
    dialog.addEventListener(
      'close',
      () => {
        if (dialog.returnValue !== 'delete') return;
        const confirmed = document.createElement('input');
        confirmed.type = 'hidden';
        confirmed.name = 'confirmed';
        confirmed.value = 'yes';
        form.append(confirmed);
        form.requestSubmit(button);
      },
      { once: true },
    );
    dialog.showModal();
  });
}
