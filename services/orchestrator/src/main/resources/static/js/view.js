// Small DOM helpers, Markdown rendering (sanitized) and formatting.

import { marked } from '../webjars/marked/lib/marked.esm.js';
import DOMPurify from '../webjars/dompurify/dist/purify.es.mjs';

marked.setOptions({ gfm: true, breaks: true });
// A model's answer is not trusted: no forms or their fields, and no image from another server (it
// would tell that server the page was read, and what the model put in its address); such an
// image keeps only its alt text. The page's Content-Security-Policy blocks them too.
const SANITIZE = { FORBID_TAGS: ['form', 'input', 'button', 'textarea', 'select', 'option', 'style'] };
DOMPurify.addHook('afterSanitizeAttributes', (node) => {
  if (node.tagName === 'A') {
    node.setAttribute('target', '_blank');
    node.setAttribute('rel', 'noopener noreferrer');
  }
  if (node.tagName === 'IMG') {
    node.removeAttribute('srcset');
    let url = null;
    try {
      url = new URL(node.getAttribute('src') ?? '', document.baseURI);
    } catch {
      // not an address: dropped below
    }
    if (!url || url.origin !== window.location.origin) node.removeAttribute('src');
  }
});

/** An element: el('div.a.b', {title: 'x', onclick}, child, 'text', ...). */
export function el(spec, attributes = {}, ...children) {
  const [tag, ...classes] = spec.split('.');
  const node = document.createElement(tag || 'div');
  if (classes.length) node.className = classes.join(' ');
  for (const [key, value] of Object.entries(attributes ?? {})) {
    if (value == null || value === false) continue;
    if (key.startsWith('on')) node.addEventListener(key.slice(2), value);
    else if (key === 'dataset') Object.assign(node.dataset, value);
    else node.setAttribute(key, value === true ? '' : value);
  }
  for (const child of children.flat(Infinity)) {
    if (child == null || child === false) continue;
    node.append(child instanceof Node ? child : String(child));
  }
  return node;
}

/** Markdown as sanitized HTML inside a new element. */
export function markdown(text, spec = 'div.markdown') {
  const node = el(spec);
  node.innerHTML = DOMPurify.sanitize(marked.parse(text ?? ''), SANITIZE);
  return node;
}

/** "researcher" -> "Researcher". */
export function agentName(agent) {
  if (!agent) return 'The orchestrator';
  return agent.charAt(0).toUpperCase() + agent.slice(1).replace(/[-_]/g, ' ');
}

export function formatTokens(n) {
  if (n == null) return '';
  return n >= 10000 ? `${(n / 1000).toFixed(1)}k` : String(n);
}

export function formatLatency(ms) {
  if (ms == null) return '';
  return ms >= 1000 ? `${(ms / 1000).toFixed(1)} s` : `${ms} ms`;
}

export function formatTime(iso) {
  if (!iso) return '';
  const date = new Date(iso);
  const today = new Date().toDateString() === date.toDateString();
  return today
    ? date.toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' })
    : date.toLocaleDateString([], { month: 'short', day: 'numeric' });
}

/** JSON text pretty-printed when it parses (line breaks inside strings shown as such), else as it is. */
export function prettyJson(text) {
  if (text == null) return '';
  try {
    return JSON.stringify(JSON.parse(text), null, 2).replace(/\\n/g, '\n');
  } catch {
    return String(text).replace(/\\n/g, '\n'); // e.g. an excerpt of JSON, cut short
  }
}

/** One line, at most n characters. */
export function excerpt(text, n = 80) {
  const line = String(text ?? '').replace(/\s+/g, ' ').trim();
  return line.length > n ? `${line.slice(0, n - 1)}…` : line;
}

export const STATUS_LABELS = {
  created: 'Queued',
  running: 'Working',
  waiting: 'Needs your answer',
  success: 'Done',
  failed: 'Failed',
  cancelled: 'Cancelled',
};

export const ACTIVE = new Set(['created', 'running', 'waiting']);
