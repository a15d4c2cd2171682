// A task's run as a waterfall: each model turn, tool call and child agent a bar on one time axis,
// built from the task's run events, so a person sees what ran at the same time and what was slow
// without any tracing backend.

import { el, agentName, formatLatency } from './view.js';

/** The bars of the task's run events: [{kind, label, start, end}] in milliseconds, by start. */
export function bars(events) {
  const starts = new Map();
  const out = [];
  // A bar starts at its start event, or as long before its end event as the end says it took,
  // whichever is earlier: a quick tool's start is recorded with its result, at the same moment.
  const done = (key, kind, label, endAt, latencyMs) => {
    const start = Math.min(starts.get(key) ?? endAt, endAt - (latencyMs ?? 0));
    starts.delete(key);
    out.push({ kind, label, start, end: Math.max(endAt, start) });
  };
  for (const e of events) {
    const at = Date.parse(e.at);
    const d = e.data ?? {};
    switch (e.type) {
      case 'step_start': starts.set(`step:${e.subAgentId}:${d.step}`, at); break;
      case 'step_end': done(`step:${e.subAgentId}:${d.step}`, 'model', `Model turn ${d.step}`, at, d.latencyMs); break;
      case 'tool_call_start': starts.set(`tool:${d.toolCallId}`, at); break;
      case 'tool_call_result':
        done(`tool:${d.toolCallId}`, d.status === 'failed' ? 'tool failed' : 'tool', d.tool, at, d.latencyMs);
        break;
      case 'delegation_start': starts.set(`child:${d.childTaskId}`, at); break;
      case 'delegation_end': done(`child:${d.childTaskId}`, 'child', agentName(d.agent), at, null); break;
      default: break;
    }
  }
  // Still under way: a bar up to the last event.
  const last = events.length ? Date.parse(events[events.length - 1].at) : 0;
  for (const [key, start] of starts) {
    const [kind, ...rest] = key.split(':');
    const label = kind === 'step' ? `Model turn ${rest[1]}` : kind === 'tool' ? 'tool' : 'child agent';
    out.push({ kind: `${kind === 'step' ? 'model' : kind} running`, label, start, end: Math.max(last, start) });
  }
  return out.sort((a, b) => a.start - b.start);
}

/** The waterfall of the task's run events; null when there is nothing to draw. */
export function waterfall(events) {
  const all = bars(events);
  if (!all.length) return null;
  const from = Math.min(...all.map((b) => b.start));
  const span = Math.max(1, Math.max(...all.map((b) => b.end)) - from);
  return el('div.waterfall', { role: 'list', 'aria-label': 'What ran when' },
    all.map((b) => {
      const bar = el(`span.bar.bar-${b.kind.replace(' ', '.bar-')}`, { title: `${b.label}: ${formatLatency(b.end - b.start)}` });
      // Positions through the CSSOM: the page's Content-Security-Policy forbids style attributes.
      bar.style.left = `${(100 * (b.start - from)) / span}%`;
      bar.style.width = `${Math.max(0.5, (100 * (b.end - b.start)) / span)}%`;
      return el('div.waterfall-row', { role: 'listitem' },
        el('span.waterfall-label', {}, b.label),
        el('span.waterfall-track', {}, bar),
        el('span.waterfall-time', {}, formatLatency(b.end - b.start)));
    }));
}
