// A task's timeline: what its sub-agent did, from the task's run events (or, for a task that ran
// before events were recorded, from its stored conversation and tool calls).

import {
  el, markdown, agentName, formatTokens, formatLatency, formatTime, prettyJson, excerpt,
} from './view.js';
import { api } from './api.js';

/** Which <details> the person opened, so a re-render keeps them open. */
const opened = new Set();

/** Replays asked for, by task and turn: 'pending', the replay, or { error }; kept across re-renders. */
const replays = new Map();

function answerView(answer) {
  return [
    answer.text ? el('pre', {}, answer.text) : null,
    ...answer.toolCalls.map((c) => el('p.small', {}, el('code', {}, c.name), ' ', el('code', {}, c.arguments))),
  ];
}

/** What the replay of one turn shows: the recorded and the new answer side by side. */
function replayResult(key) {
  const replay = replays.get(key);
  if (replay == null) return [];
  if (replay === 'pending') return [el('p.small.muted', {}, 'Replaying…')];
  if (replay.error) return [el('p.small.replay-error', {}, replay.error)];
  return [
    el('div.replay-pair', {},
      el('div.io', {}, el('h4', {}, `Recorded · ${replay.recorded.model}`), ...answerView(replay.recorded)),
      el('div.io', {}, el('h4', {}, `Replayed · ${replay.replayed.model}`), ...answerView(replay.replayed))),
    el('p.small', {}, replay.sameAnswer ? 'The same answer.' : 'A different answer.'),
    replay.inputChanges.length
      ? el('ul.small.replay-changes', {}, replay.inputChanges.map((c) => el('li', {}, c))) : null,
  ];
}

/**
 * Replay on a model turn: asks POST /api/tasks/{taskId}/turns/{n}/replay (nothing is stored) and
 * shows the answer beside the recorded one, in place, whatever re-rendered meanwhile.
 */
function replayButton(taskId, turn) {
  const key = `${taskId}:${turn}`;
  const shown = () => document.querySelector(`[data-replay="${CSS.escape(key)}"]`);
  const run = async () => {
    replays.set(key, 'pending');
    shown()?.replaceChildren(...replayResult(key));
    try {
      replays.set(key, await api.replayTurn(taskId, turn));
    } catch (e) {
      replays.set(key, { error: e.message });
    }
    shown()?.replaceChildren(...replayResult(key));
  };
  return el('div.replay', {},
    el('button.link.replay-button', { type: 'button', onclick: run }, 'Replay'),
    el('div', { dataset: { replay: key } }, ...replayResult(key)));
}

function details(key, summary, ...body) {
  return el('details.entry-details', { open: opened.has(key), dataset: { key } }, el('summary', {}, summary), ...body);
}

/**
 * Notes which timeline <details> under root are open, just before a re-render replaces them. Read
 * from the page itself: a 'toggle' event is dispatched after the click that caused it, so a
 * re-render in between would have closed what the person had just opened.
 */
export function rememberOpened(root) {
  for (const node of root.querySelectorAll('details.entry-details')) {
    if (node.open) opened.add(node.dataset.key);
    else opened.delete(node.dataset.key);
  }
}

function entry(kind, icon, title, meta, ...body) {
  return el(`li.entry.entry-${kind}`, {},
    el('span.entry-icon', { 'aria-hidden': 'true' }, icon),
    el('div.entry-body', {},
      el('div.entry-head', {}, el('span.entry-title', {}, title), meta ? el('span.entry-meta', {}, meta) : null),
      ...body));
}

function toolCall(key, tool, args, result) {
  const status = result ? result.status : 'running';
  const meta = result
    ? [result.status === 'failed' ? `failed${result.errorType ? ` (${result.errorType})` : ''}` : 'ok',
      formatLatency(result.latencyMs)].filter(Boolean).join(' · ')
    : 'running…';
  return el(`li.entry.entry-tool.tool-${status}`, {},
    el('span.entry-icon', { 'aria-hidden': 'true' }, status === 'failed' ? '⚠' : '⚙'),
    el('div.entry-body', {},
      details(key,
        el('span.entry-head', {}, el('span.entry-title', {}, el('code', {}, tool)),
          el('span.entry-meta', {}, meta)),
        el('div.io', {}, el('h4', {}, 'Arguments'), el('pre', {}, prettyJson(args))),
        result ? el('div.io', {}, el('h4', {}, result.status === 'failed' ? 'Error' : 'Result'),
          el('pre', {}, prettyJson(result.result))) : null)));
}

/** A button that opens another task's timeline (a child's), when the page can open tasks. */
function taskLink(onOpenTask, taskId, label) {
  return onOpenTask && taskId
    ? el('button.link.task-link', { type: 'button', onclick: () => onOpenTask(taskId) }, label)
    : null;
}

/** The timeline of a task from its run events, oldest first; onOpenTask opens a child task. */
export function fromEvents(taskId, events, onOpenTask) {
  const list = el('ol.timeline');
  const results = new Map();
  const stepEnds = new Map();
  for (const e of events) {
    if (e.type === 'tool_call_result') results.set(e.data.toolCallId, e.data);
    if (e.type === 'step_end') stepEnds.set(`${e.subAgentId}:${e.data.step}`, e);
  }
  for (const e of events) {
    const d = e.data ?? {};
    const at = formatTime(e.at);
    switch (e.type) {
      case 'handoff':
        list.append(entry('handoff', '➜', d.reactivated ? `Follow-up for ${agentName(d.agent)}` : `Handed to ${agentName(d.agent)}`, at,
          el('p.quote', {}, d.task)));
        break;
      case 'run_start':
        list.append(entry('run', '▶', `${agentName(d.agent ?? e.agent)} started`, at));
        break;
      case 'step_start': {
        const end = stepEnds.get(`${e.subAgentId}:${d.step}`);
        const ed = end?.data;
        const meta = ed
          ? [ed.model ?? d.model, `${formatTokens(ed.inputTokens)} in · ${formatTokens(ed.outputTokens)} out`, formatLatency(ed.latencyMs)].filter(Boolean).join(' · ')
          : `${d.model ?? 'model'} · thinking…`;
        list.append(entry(ed ? 'step' : 'step running', '◆', `Model turn ${d.step}`, meta,
          ed?.toolCalls?.length ? el('p.small', {}, 'asked for ', ed.toolCalls.map((t, i) => [i ? ', ' : '', el('code', {}, t)])) : null,
          ed?.text ? el('p.small.muted', {}, excerpt(ed.text, 240)) : null,
          ed && d.turn ? replayButton(taskId, d.turn) : null));
        break;
      }
      case 'step_end':
        break; // shown with its step_start
      case 'tool_call_start':
        list.append(toolCall(`${taskId}:${d.toolCallId}`, d.tool, d.arguments, results.get(d.toolCallId)));
        break;
      case 'tool_call_result':
        break; // shown with its tool_call_start
      case 'delegation_start':
        list.append(entry('handoff', '➜', `${d.continued ? 'Asked the' : 'Handed to the'} ${agentName(d.agent)} (message_agent)`, at,
          el('p.quote', {}, d.message),
          taskLink(onOpenTask, d.childTaskId, `Open the ${agentName(d.agent)}'s timeline`)));
        break;
      case 'delegation_end':
        list.append(entry(`end end-${d.status === 'success' ? 'completed' : d.status}`, '↩', `The ${agentName(d.agent)} answered (${d.status})`, at,
          d.result ? el('p.small.muted', {}, excerpt(d.result, 240)) : null,
          taskLink(onOpenTask, d.childTaskId, `Open the ${agentName(d.agent)}'s timeline`)));
        break;
      case 'question':
        list.append(entry('question', '?', `${agentName(e.agent)} asked you`, at, el('p.quote', {}, d.question)));
        break;
      case 'user_answer':
        list.append(entry('answer', '↩', 'You answered', at, el('p.quote', {}, d.answer)));
        break;
      case 'budget_warning':
        list.append(entry('warning', '!', 'Budget warning', at, el('p.small', {}, `${d.limit}: ${d.used} of ${d.max} used`)));
        break;
      case 'error':
        list.append(entry('error', '✕', 'Error', at, el('p.small', {}, d.message ?? d.reason)));
        break;
      case 'run_end':
        list.append(entry(`end end-${d.status}`, d.status === 'completed' ? '✓' : '■',
          d.status === 'completed' ? 'Finished' : d.status === 'cancelled' ? 'Cancelled' : 'Failed', at,
          d.reason ? el('p.small', {}, d.reason) : null,
          d.result ? details(`${taskId}:result:${e.seq}`, 'Result', markdown(d.result)) : null));
        break;
      default:
        break;
    }
  }
  return list;
}

/** The timeline of a task from GET /api/tasks/{id}: its conversation and tool calls. */
export function fromDetails(view, onOpenTask) {
  const list = el('ol.timeline');
  const calls = new Map(view.toolCalls.map((c) => [c.modelCallId, c]));
  const answers = new Map(view.messages.filter((m) => m.role === 'tool').map((m) => [m.toolCallId, m.content]));
  let turn = 0;
  for (const m of view.messages) {
    if (m.role === 'user') {
      list.append(entry('handoff', '➜', 'Instruction', null, el('p.quote', {}, m.content)));
    } else if (m.role === 'assistant') {
      turn += 1;
      const meta = [m.model, m.usage ? `${formatTokens(m.usage.promptTokens)} in · ${formatTokens(m.usage.completionTokens)} out` : null]
        .filter(Boolean).join(' · ');
      list.append(entry('step', '◆', `Model turn ${turn}`, meta,
        m.content && !m.toolCalls ? el('p.small.muted', {}, excerpt(m.content, 240)) : null,
        replayButton(view.task.id, turn)));
      for (const call of m.toolCalls ?? []) {
        // The tool message is the result the agent saw (ask_user's: the person's answer).
        const stored = calls.get(call.id);
        const failed = stored?.status === 'failed';
        const seen = answers.get(call.id);
        list.append(toolCall(`${view.task.id}:${call.id}`, call.name, call.arguments, seen != null || failed
          ? { status: failed ? 'failed' : 'succeeded', result: seen ?? stored?.error, latencyMs: stored?.latencyMs }
          : null));
        if (call.name === 'message_agent' && seen) {
          // The child's conversation id is its task's id.
          let child = null;
          try { child = JSON.parse(seen).conversation_id; } catch { /* not JSON: no link */ }
          const link = taskLink(onOpenTask, child, 'Open the child task\'s timeline');
          if (link) list.append(el('li.entry.entry-link', {}, link));
        }
      }
    }
  }
  if (view.task.error) list.append(entry('error', '✕', 'Failed', null, el('p.small', {}, view.task.error)));
  return list;
}
