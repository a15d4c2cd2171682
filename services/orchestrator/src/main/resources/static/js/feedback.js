// What a person tells a running chat besides a new message, all through POST
// /api/chats/{id}/feedback: a decision on a call that awaits approval, a pick among a question's
// options, guidance for a running task.

import { api, ApiError } from './api.js';
import { el, agentName, prettyJson, excerpt } from './view.js';

/** Arguments longer than this are folded: a line of them, the rest on unfold. */
const FOLD_AT = { characters: 240, lines: 8 };

/** The person's decision as the chat shows it, e.g. "Rejected: not today". */
function decisionText(approved, reason) {
  return approved ? 'Approved' : `Rejected${reason ? `: ${reason}` : ''}`;
}

/**
 * Approve or Reject (with an optional reason) for a call that awaits approval; onDecided(text)
 * once the server took the decision.
 */
export function approvalControls(chatId, toolCallId, onDecided, toast) {
  const box = el('div.approval', { dataset: { toolCallId } });
  const reason = el('input.approval-reason', { type: 'text', placeholder: 'Reason (optional)', 'aria-label': 'Reason' });
  const decide = async (approved) => {
    for (const button of box.querySelectorAll('button')) button.disabled = true;
    const why = reason.value.trim();
    try {
      await api.feedback(chatId, { type: 'approval', toolCallId, approved, reason: why || null });
      onDecided(decisionText(approved, why));
    } catch (e) {
      toast(e instanceof ApiError && e.status === 409 ? 'That call was decided already.' : `Could not send the decision: ${e.message}`);
      for (const button of box.querySelectorAll('button')) button.disabled = false;
    }
  };
  box.append(reason,
    el('button.approve', { type: 'button', onclick: () => decide(true) }, 'Approve'),
    el('button.reject', { type: 'button', onclick: () => decide(false) }, 'Reject'));
  return box;
}

/** What a call asks to run: "The Scribe asks to run write_note with:" and its arguments, long ones folded. */
export function approvalCall(agent, call) {
  const args = String(call.arguments ?? '');
  const pretty = prettyJson(args);
  const long = pretty.length > FOLD_AT.characters || pretty.split('\n').length > FOLD_AT.lines;
  return el('div.approval-call', {},
    el('p.approval-what', {}, `The ${agentName(agent)} asks to run `, el('code', {}, call.tool), ' with:'),
    long
      ? el('details.approval-args', {},
        el('summary', {}, el('span.approval-args-excerpt', {}, excerpt(args, 90)),
          el('span.approval-args-more', {}, `Show all ${args.length} characters`)),
        el('pre', {}, pretty))
      : el('pre.approval-args', {}, pretty));
}

/**
 * A question's options as buttons; a click sends the pick as a selection, which the server posts
 * as the person's answer.
 */
export function optionButtons(chatId, options, toast) {
  const box = el('div.choices', { role: 'group', 'aria-label': 'Choose one' });
  const pick = async (button, option) => {
    for (const b of box.querySelectorAll('button')) b.disabled = true;
    button.classList.add('chosen');
    try {
      await api.feedback(chatId, { type: 'selection', option });
    } catch (e) {
      toast(e instanceof ApiError && e.status === 409 ? 'That question was answered already.' : `Could not send your choice: ${e.message}`);
      button.classList.remove('chosen');
      for (const b of box.querySelectorAll('button')) b.disabled = false;
    }
  };
  for (const option of options) {
    const button = el('button.choice', { type: 'button' }, option);
    button.addEventListener('click', () => pick(button, option));
    box.append(button);
  }
  return box;
}

/**
 * The options of the question a task waits on: those of its unanswered ask_user call (GET
 * /api/tasks/{id}); none for an open question.
 */
export function pendingOptions(details) {
  const answered = new Set(details.messages.filter((m) => m.role === 'tool').map((m) => m.toolCallId));
  const asks = details.messages.flatMap((m) => m.toolCalls ?? []).filter((c) => c.name === 'ask_user' && !answered.has(c.id));
  try {
    const options = JSON.parse(asks.at(-1)?.arguments ?? '{}').options;
    return Array.isArray(options) ? options.filter((o) => typeof o === 'string' && o.trim()).map((o) => o.trim()) : [];
  } catch {
    return [];
  }
}

/**
 * The Guide box of a running task: the text joins the sub-agent's conversation, and its next turn
 * sees it. drafts (taskId -> text) keep what is typed across re-renders.
 */
export function guideBox(chatId, task, drafts, toast) {
  const input = el('input.guide-input', {
    type: 'text', placeholder: `Guide the ${agentName(task.agent)}…`, 'aria-label': `Guide the ${agentName(task.agent)}`,
    maxlength: '32000', dataset: { taskId: task.id },
  });
  input.value = drafts.get(task.id) ?? '';
  input.addEventListener('input', () => drafts.set(task.id, input.value));
  const button = el('button.button.small', { type: 'submit' }, 'Guide');
  const form = el('form.guide', {}, input, button);
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    const text = input.value.trim();
    if (!text) return;
    button.disabled = true;
    try {
      await api.feedback(chatId, { type: 'guidance', taskId: task.id, text });
      drafts.delete(task.id);
      input.value = '';
    } catch (error) {
      toast(`Could not guide the ${agentName(task.agent)}: ${error.message}`);
    } finally {
      button.disabled = false;
    }
  });
  return form;
}
