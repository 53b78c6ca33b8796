// kurz's only script, and optional: every page works without it. It turns on the copy buttons, which
// are hidden until then (a button that cannot work is not shown).
/* global navigator, window, document, setTimeout, clearTimeout */
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
  const label = button.textContent;
  let timer;
  button.hidden = false;
  button.addEventListener('click', async () => {
    clearTimeout(timer);
    try {
      await copyText(button.dataset.copy);
      button.dataset.state = 'copied';
      button.textContent = 'Copied';
      if (status) status.textContent = 'Copied to the clipboard.';
    } catch {
      button.dataset.state = 'failed';
      if (status) status.textContent = 'Could not copy; select the text and copy it yourself.';
    }
    timer = setTimeout(() => {
      button.textContent = label;
      delete button.dataset.state;
      if (status) status.textContent = '';
    }, 4000);
  });
}
