// The chat web UI: chats, the conversation, live activity and the task panel.
//
// The page's state comes from the REST API when a chat opens; the chat's run events (SSE, replayed
// from the start of the chat's ledger, then live) keep it current and feed the activity line and
// the tasks' timelines. While the stream is down the page falls back to reading the REST API every
// few seconds, so nothing is missed either way.

import { api, ApiError } from './api.js';
import { ChatStream } from './stream.js';
import {
  el, markdown, agentName, formatTokens, formatTime, excerpt, STATUS_LABELS, ACTIVE,
} from './view.js';
import { fromEvents, fromDetails, rememberOpened } from './timeline.js';
import { waterfall } from './waterfall.js';
import { ChatPlans } from './plangraph.js';
import {
  approvalControls, approvalCall, optionButtons, pendingOptions, guideBox,
} from './feedback.js';

const $ = (id) => document.getElementById(id);
const ui = {
  app: $('app'), chatList: $('chat-list'), newChat: $('new-chat'), title: $('chat-title'),
  connection: $('connection'), banner: $('banner'), messages: $('messages'), welcome: $('welcome'),
  activity: $('activity'), composer: $('composer'), input: $('input'), send: $('send'),
  replying: $('replying'), taskList: $('task-list'), taskCount: $('task-count'), toasts: $('toasts'),
  scrim: $('scrim'),
};

const POLL_MS = 3000;

let state = emptyChat(null);
let chats = [];

function emptyChat(chatId) {
  return {
    chatId,
    chat: null,
    messages: [],
    rendered: new Map(), // messageId -> element
    tasks: new Map(), // taskId -> task
    events: new Map(), // taskId -> [run event]
    activity: new Map(), // taskId -> {agent, text, kind}
    questions: new Map(), // messageId -> taskId: a sub-agent's question
    decisions: new Map(), // toolCallId -> what was decided on it, as shown
    answers: new Map(), // messageId -> taskId: the person's answer to it
    awaitingQuestion: new Set(), // taskIds whose question event came before its message
    details: new Map(), // taskId -> GET /api/tasks/{id} (tasks without run events)
    plans: new ChatPlans({
      container: ui.messages,
      messageNode: (id) => state.rendered.get(id),
      onOpenTask: (taskId) => openTask(taskId),
      onChange: () => render(),
      toast: (text) => toast(text),
    }),
    options: new Map(), // messageId -> a question's options ([] for an open question), once read
    calls: new Map(), // toolCallId -> {tool, arguments}: a call awaiting approval, as stored
    guided: new Map(), // taskId -> [the person's guidance texts]
    drafts: new Map(), // taskId -> guidance being typed
    openTask: null,
    deciding: false,
    sentAt: '',
    stream: null,
    connection: 'idle',
    pollTimer: null,
  };
}

// --- rendering ------------------------------------------------------------------------------

let frame = 0;
function render() {
  if (frame) return;
  frame = requestAnimationFrame(() => {
    frame = 0;
    renderChats();
    renderHeader();
    renderMessages();
    state.plans.render();
    renderActivity();
    renderReplying();
    renderTasks();
  });
}

function renderChats() {
  const items = chats.map((chat) =>
    el('a.chat-item', {
      href: `#/chat/${encodeURIComponent(chat.id)}`,
      'aria-current': chat.id === state.chatId ? 'page' : null,
      onclick: () => setPanel(''),
    },
    el('span.chat-item-title', {}, chat.title || 'Untitled chat'),
    el('span.chat-item-time', {}, formatTime(chat.createdAt))));
  ui.chatList.replaceChildren(...(items.length ? items : [el('p.empty', {}, 'No chats yet.')]));
}

const CONNECTION_LABELS = {
  idle: '', connecting: 'Connecting…', live: 'Live', reconnecting: 'Reconnecting…', down: 'Offline',
};

function renderHeader() {
  ui.title.textContent = state.chat?.title ?? 'agentrt';
  document.title = state.chat ? `${state.chat.title} · agentrt` : 'agentrt';
  ui.connection.dataset.state = state.connection;
  ui.connection.textContent = CONNECTION_LABELS[state.connection] ?? '';
  const active = [...state.tasks.values()].filter((t) => ACTIVE.has(t.status)).length;
  ui.taskCount.textContent = active ? `${active} active` : String(state.tasks.size);
  ui.taskCount.dataset.active = active > 0;
  if (state.connection === 'down' || state.connection === 'reconnecting') {
    ui.banner.hidden = false;
    ui.banner.replaceChildren(
      el('span', {}, 'Lost the live connection to the server. Updates are fetched every few seconds while it reconnects. '),
      el('button.link', { type: 'button', onclick: () => state.stream?.reconnect() }, 'Reconnect now'));
  } else {
    ui.banner.hidden = true;
  }
}

function author(message) {
  if (message.role === 'user') return 'You';
  const task = message.taskId ? state.tasks.get(message.taskId) : null;
  return task ? agentName(task.agent) : 'Orchestrator';
}

/** A sub-agent's request to run a call that needs the person's approval (the notifier's message). */
const isApproval = (message) => message.role !== 'user' && Boolean(message.toolCallId);

function messageElement(message) {
  const approval = isApproval(message);
  const node = el(`article.message.${message.role === 'user' ? 'user' : 'assistant'}${approval ? '.approval-request' : ''}`, { dataset: { id: message.id } },
    el('div.avatar', { 'aria-hidden': 'true' }, message.role === 'user' ? 'You' : author(message).charAt(0)),
    el('div.bubble', {},
      el('div.message-meta', {}, el('span.author', {}, author(message)), el('span.time', {}, formatTime(message.createdAt))),
      el('div.tag'),
      // An approval request shows its call once known (renderApproval); its text until then.
      message.role === 'user' ? el('div.plain', {}, message.content) : markdown(message.content),
      el('div.choices-slot'),
      approval ? decisionBox(message.toolCallId) : null,
      message.taskId && message.role !== 'user'
        ? el('button.link.task-link', { type: 'button', onclick: () => openTask(message.taskId) }, 'Show what the agent did')
        : null));
  return node;
}

/** Approve / Reject for a call that awaits approval, or what was decided on it. */
function decisionBox(toolCallId) {
  const decided = state.decisions.get(toolCallId);
  if (decided) return el('div.approval', { dataset: { toolCallId } }, el('span.approval-outcome', {}, decided));
  return approvalControls(state.chatId, toolCallId, (text) => showDecision(toolCallId, text), toast);
}

/** Shows a call's decision in place of its buttons, wherever it was decided. */
function showDecision(toolCallId, text) {
  state.decisions.set(toolCallId, text);
  for (const box of document.querySelectorAll('.approval')) {
    if (box.dataset.toolCallId === toolCallId) box.replaceChildren(el('span.approval-outcome', {}, text));
  }
}

function renderMessages() {
  ui.welcome.hidden = state.messages.length > 0;
  const nearBottom = ui.messages.scrollHeight - ui.messages.scrollTop - ui.messages.clientHeight < 120;
  for (const message of state.messages) {
    let node = state.rendered.get(message.id);
    if (!node) {
      node = messageElement(message);
      state.rendered.set(message.id, node);
      ui.messages.append(node);
    }
    node.querySelector('.author').textContent = author(message);
    const questionOf = state.questions.get(message.id);
    const answerTo = state.answers.get(message.id);
    const task = state.tasks.get(questionOf ?? answerTo ?? message.taskId);
    const open = Boolean(questionOf) && task?.status === 'waiting';
    node.classList.toggle('question', Boolean(questionOf));
    node.classList.toggle('open-question', open);
    node.classList.toggle('answer', Boolean(answerTo));
    renderOptions(node, message, open);
    const tag = node.querySelector('.tag');
    if (isApproval(message)) {
      const pending = !state.decisions.has(message.toolCallId) && task?.status === 'waiting';
      node.classList.toggle('open-approval', pending);
      renderApproval(node, message, task);
      tag.textContent = pending ? 'Approval needed · waiting for your decision' : 'Approval request';
    } else if (questionOf) {
      tag.textContent = open ? 'Question · waiting for your answer' : 'Question';
    } else if (answerTo) {
      tag.textContent = `↳ Answer to the ${agentName(task?.agent)}`;
    } else {
      tag.textContent = '';
    }
    tag.hidden = !tag.textContent;
  }
  if (nearBottom) ui.messages.scrollTop = ui.messages.scrollHeight;
}

/** The options of an open question as buttons, read from its task once. */
function renderOptions(node, message, open) {
  if (open && !state.options.has(message.id)) loadOptions(message);
  const options = open ? state.options.get(message.id) : null;
  const want = options?.length ? message.id : '';
  const slot = node.querySelector('.choices-slot');
  if (slot.dataset.shown === want) return;
  slot.dataset.shown = want;
  slot.replaceChildren(...(want ? [optionButtons(state.chatId, options, toast)] : []));
}

/** The tool and arguments of an approval request: from its task as stored, else its run event. */
function renderApproval(node, message, task) {
  if (!state.calls.has(message.toolCallId)) loadCall(message);
  const event = (state.events.get(message.taskId) ?? [])
    .find((e) => e.type === 'approval_requested' && e.data?.toolCallId === message.toolCallId);
  const call = state.calls.get(message.toolCallId) ?? (event ? { tool: event.data.tool, arguments: event.data.arguments } : null);
  if (!call?.tool) return;
  const key = `${call.tool}\n${call.arguments}`;
  const content = node.querySelector('.markdown, .approval-call');
  if (content.dataset.key === key) return;
  const shown = approvalCall(task?.agent, call);
  shown.dataset.key = key;
  content.replaceWith(shown);
}

async function loadOptions(message) {
  state.options.set(message.id, null);
  try {
    const options = pendingOptions(await api.task(message.taskId));
    if (state.options.has(message.id)) state.options.set(message.id, options);
  } catch {
    if (state.options.has(message.id)) state.options.set(message.id, []); // the person can still type it
  }
  render();
}

async function loadCall(message) {
  state.calls.set(message.toolCallId, null);
  try {
    const call = (await api.task(message.taskId)).toolCalls.find((c) => c.id === message.toolCallId);
    if (call && state.calls.has(message.toolCallId)) state.calls.set(message.toolCallId, { tool: call.name, arguments: call.arguments });
  } catch {
    // the run event shows it meanwhile
  }
  render();
}

function renderActivity() {
  const rows = [];
  if (state.deciding) {
    rows.push(el('div.activity-row.kind-deciding', {},
      el('span.pulse', { 'aria-hidden': 'true' }), el('strong', {}, 'Orchestrator'), el('span', {}, 'is reading your message…')));
  }
  for (const [taskId, a] of state.activity) {
    rows.push(el(`button.activity-row.kind-${a.kind}`, { type: 'button', onclick: () => openTask(taskId), title: 'Show the task' },
      el('span.pulse', { 'aria-hidden': 'true' }), el('strong', {}, agentName(a.agent)), el('span', {}, a.text)));
  }
  ui.activity.replaceChildren(...rows);
  ui.activity.hidden = rows.length === 0;
}

function waitingQuestion() {
  for (const [messageId, taskId] of [...state.questions].reverse()) {
    const task = state.tasks.get(taskId);
    if (task?.status === 'waiting') return { task, message: state.messages.find((m) => m.id === messageId) };
  }
  return null;
}

/** The latest call that awaits the person's decision, with its request message and task. */
function waitingApproval() {
  const message = [...state.messages].reverse().find((m) => isApproval(m) && !state.decisions.has(m.toolCallId)
    && state.tasks.get(m.taskId)?.status === 'waiting');
  return message ? { message, task: state.tasks.get(message.taskId) } : null;
}

function renderReplying() {
  const waiting = waitingQuestion();
  const approval = waiting ? null : waitingApproval();
  ui.replying.hidden = !waiting && !approval;
  ui.input.placeholder = waiting
    ? `Answer the ${agentName(waiting.task.agent)}…`
    : state.chatId ? 'Message the orchestrator…' : 'Start a new chat…';
  if (waiting) {
    ui.replying.replaceChildren(
      el('span.replying-label', {}, `Your next message answers the ${agentName(waiting.task.agent)}:`),
      el('span.replying-question', {}, excerpt(waiting.message?.content ?? '', 140)));
  } else if (approval) {
    const tool = state.calls.get(approval.message.toolCallId)?.tool;
    ui.replying.replaceChildren(
      el('span.replying-label', {}, `The ${agentName(approval.task.agent)} waits for your approval${tool ? ` to run ${tool}` : ''}:`),
      el('span.replying-question', {}, 'Approve or Reject it above, or type "approve" or "reject: reason".'));
  }
}

function taskCard(task) {
  const open = state.openTask === task.id;
  const attention = task.status === 'waiting';
  const usage = task.usage;
  const meta = [
    usage?.turns ? `${usage.turns} model turn${usage.turns === 1 ? '' : 's'}` : null,
    usage?.promptTokens || usage?.completionTokens
      ? `${formatTokens(usage.promptTokens + usage.completionTokens)} tokens` : null,
    usage?.costUsd != null ? `$${Number(usage.costUsd).toFixed(4)}` : null,
  ].filter(Boolean).join(' · ');
  const events = state.events.get(task.id) ?? [];
  let timeline = null;
  if (open) {
    if (events.length) timeline = [waterfall(events), fromEvents(task.id, events, openTask)];
    else if (state.details.has(task.id)) timeline = fromDetails(state.details.get(task.id), openTask);
    else timeline = el('p.empty', {}, 'Loading…');
  }
  const parent = task.parentTaskId ? state.tasks.get(task.parentTaskId) : null;
  return el(`article.task.status-${task.status}${attention ? '.attention' : ''}${open ? '.open' : ''}${task.depth ? `.child.depth-${Math.min(task.depth, 4)}` : ''}`, { dataset: { taskId: task.id } },
    parent ? el('p.task-parent', {}, `↳ working for the ${agentName(parent.agent)}`) : null,
    el('button.task-head', { type: 'button', 'aria-expanded': open, onclick: () => openTask(open ? null : task.id) },
      el('span.status-dot', { 'aria-hidden': 'true' }),
      el('span.task-agent', {}, agentName(task.agent)),
      el('span.badge', {}, STATUS_LABELS[task.status] ?? task.status),
      el('span.chevron', { 'aria-hidden': 'true' }, open ? '▾' : '▸')),
    el('p.task-instruction', {}, task.instruction),
    task.routing ? el('p.task-routing', {}, routingLine(task.routing)) : null,
    task.error ? el('p.task-error', {}, task.error) : null,
    meta ? el('p.task-meta', {}, meta) : null,
    (state.guided.get(task.id) ?? []).map((text) => el('p.task-guided', {}, '↳ Your guidance: ', el('q', {}, excerpt(text, 120)))),
    task.status === 'running' ? guideBox(state.chatId, task, state.drafts, toast) : null,
    ACTIVE.has(task.status)
      ? el('div.task-actions', {}, el('button.button.small.danger-ghost', { type: 'button', onclick: () => cancelTask(task) }, 'Cancel'))
      : null,
    open ? el('div.task-timeline', {}, timeline) : null);
}

/** "routed with 0.82: <reason>", and whether it went to the fallback agent. */
function routingLine(routing) {
  return `${routing.fallback ? 'fallback, ' : ''}routed with ${routing.confidence.toFixed(2)}: ${routing.reason}`;
}

/** Tasks newest first, each followed by its children (oldest first), nested as deep as they go. */
function taskTree(all) {
  const byParent = new Map();
  for (const t of all) {
    const parent = t.parentTaskId && all.some((p) => p.id === t.parentTaskId) ? t.parentTaskId : null;
    if (!byParent.has(parent)) byParent.set(parent, []);
    byParent.get(parent).push(t);
  }
  const ordered = [];
  const visit = (parent, newestFirst) => {
    const children = [...(byParent.get(parent) ?? [])].sort((a, b) => String(a.createdAt).localeCompare(String(b.createdAt)));
    for (const t of newestFirst ? children.reverse() : children) {
      ordered.push(t);
      visit(t.id, false);
    }
  };
  visit(null, true);
  return ordered;
}

let renderedTasks = '';
function renderTasks() {
  const tasks = taskTree([...state.tasks.values()]);
  // Rebuilt only when something shown changed, so open details and clicks are not disturbed.
  const key = JSON.stringify([state.chatId, state.openTask, tasks, [...state.guided],
    state.openTask ? [state.events.get(state.openTask)?.length, state.details.get(state.openTask)] : null]);
  if (key === renderedTasks) return;
  renderedTasks = key;
  const scroll = ui.taskList.scrollTop;
  // A Guide box being typed in stays focused, where the cursor was.
  const typing = document.activeElement?.matches('.guide-input') ? document.activeElement : null;
  rememberOpened(ui.taskList);
  ui.taskList.replaceChildren(...(tasks.length
    ? tasks.map(taskCard)
    : [el('p.empty', {}, 'No tasks yet. When the orchestrator hands work to an agent, it shows up here.')]));
  ui.taskList.scrollTop = scroll;
  if (typing) {
    const again = ui.taskList.querySelector(`.guide-input[data-task-id="${CSS.escape(typing.dataset.taskId)}"]`);
    again?.focus();
    again?.setSelectionRange(typing.selectionStart, typing.selectionEnd);
  }
}

// --- state changes --------------------------------------------------------------------------

function addMessage(message) {
  if (state.messages.some((m) => m.id === message.id)) return false;
  state.messages.push(message);
  if (message.role !== 'user') state.deciding = false;
  if (message.role !== 'user' && message.taskId && !isApproval(message) && state.awaitingQuestion.has(message.taskId)) {
    state.awaitingQuestion.delete(message.taskId);
    state.questions.set(message.id, message.taskId);
  }
  return true;
}

function upsertTask(task) {
  state.tasks.set(task.id, { ...state.tasks.get(task.id), ...task });
}

function setStatus(taskId, status) {
  const task = state.tasks.get(taskId);
  if (task) task.status = status;
}

/** A waiting task's last assistant message is its question (for state read from the REST API). */
function markOpenQuestions() {
  for (const task of state.tasks.values()) {
    if (task.status !== 'waiting') continue;
    const question = [...state.messages].reverse().find((m) => m.role !== 'user' && m.taskId === task.id);
    // A task waiting on an approval is not asking a question.
    if (question && !isApproval(question) && !state.questions.has(question.id)) state.questions.set(question.id, task.id);
  }
}

const RUN_END_STATUS = { completed: 'success', failed: 'failed', cancelled: 'cancelled' };

function onEvent(event) {
  const d = event.data ?? {};
  const taskId = event.taskId ?? d.taskId ?? null;
  if (taskId) {
    if (!state.events.has(taskId)) state.events.set(taskId, []);
    state.events.get(taskId).push(event);
  }
  const agent = event.agent ?? d.agent ?? state.tasks.get(taskId)?.agent;
  const doing = (kind, text) => state.activity.set(taskId, { agent, kind, text });
  switch (event.type) {
    case 'message':
      addMessage({ id: d.messageId, role: d.role, content: d.content, taskId: d.taskId ?? null, toolCallId: d.toolCallId ?? null, createdAt: event.at });
      if (d.taskId) refreshTasksSoon();
      break;
    case 'handoff':
      state.deciding = false;
      if (!state.tasks.has(taskId)) {
        upsertTask({ id: taskId, agent: d.agent, instruction: d.task, status: 'created', createdAt: event.at });
      } else {
        setStatus(taskId, 'running');
      }
      doing('starting', d.reactivated ? `picks up your follow-up: “${excerpt(d.task, 60)}”` : `got the task “${excerpt(d.task, 60)}”`);
      refreshTasksSoon();
      break;
    case 'run_start':
      setStatus(taskId, 'running');
      doing('working', `is working on “${excerpt(d.task ?? state.tasks.get(taskId)?.instruction, 60)}”`);
      break;
    case 'step_start':
      doing('thinking', `is thinking (turn ${d.step}${d.model ? `, ${d.model}` : ''})…`);
      break;
    case 'step_end':
      if (d.toolCalls?.length) doing('thinking', `decided to use ${d.toolCalls.join(', ')}`);
      break;
    case 'tool_call_start':
      doing('tool', `is using ${d.tool} ${excerpt(d.arguments, 50)}`);
      break;
    case 'tool_call_result':
      doing('tool', d.status === 'failed' ? `saw ${d.tool} fail (${d.errorType ?? 'error'})` : `got a result from ${d.tool}`);
      break;
    case 'question': {
      setStatus(taskId, 'waiting');
      doing('question', 'needs more information from you');
      // The notifier writes the question into the chat after this event: the task's first
      // assistant message from then on (already there when the chat was read from the REST API).
      const asked = state.messages.find((m) => m.role !== 'user' && m.taskId === taskId && !isApproval(m)
        && !state.questions.has(m.id) && Date.parse(m.createdAt) >= Date.parse(event.at));
      if (asked) state.questions.set(asked.id, taskId);
      else state.awaitingQuestion.add(taskId);
      break;
    }
    case 'approval_requested':
      setStatus(taskId, 'waiting');
      doing('question', `waits for your approval to run ${d.tool}`);
      break;
    case 'approval_decided':
      showDecision(d.toolCallId, d.approved ? `Approved by ${d.by}` : `Rejected by ${d.by}: ${d.reason}`);
      if (taskId) doing('working', d.approved ? `may run ${d.tool}: approved` : `goes on without ${d.tool}: rejected`);
      refreshTasksSoon();
      break;
    case 'guidance':
      state.guided.set(taskId, [...(state.guided.get(taskId) ?? []), d.text]);
      doing('working', d.followUp ? 'picks up your guidance as a follow-up' : 'got your guidance for its next turn');
      if (d.followUp) setStatus(taskId, 'running');
      break;
    case 'plan_created':
    case 'plan_node_started':
    case 'plan_node_ended':
    case 'plan_node_skipped':
    case 'plan_end': {
      state.deciding = false;
      state.plans.apply(event);
      refreshTasksSoon();
      break;
    }
    case 'user_answer': {
      setStatus(taskId, 'running');
      state.deciding = false;
      doing('working', 'got your answer and carries on');
      // The person's message this answer came from: the latest like it, written before the event.
      const answer = [...state.messages].reverse().find((m) => m.role === 'user' && !state.answers.has(m.id)
        && m.content.trim() === String(d.answer).trim() && Date.parse(m.createdAt) <= Date.parse(event.at) + 5000);
      if (answer) state.answers.set(answer.id, taskId);
      break;
    }
    case 'budget_warning':
      doing('warning', `is close to its ${d.limit} budget (${d.used} of ${d.max})`);
      break;
    case 'error':
      if (taskId) doing('error', `hit an error: ${excerpt(d.message ?? d.reason, 80)}`);
      else if (Date.now() - Date.parse(event.at) < 60000) toast(d.message ?? d.reason ?? 'Something went wrong.');
      break;
    case 'delegation_start':
      doing('starting', `asks the ${agentName(d.agent)}: “${excerpt(d.message, 60)}”`);
      refreshTasksSoon();
      break;
    case 'delegation_end':
      doing('working', `got the ${agentName(d.agent)}'s answer (${d.status})`);
      refreshTasksSoon();
      break;
    case 'run_end':
      setStatus(taskId, RUN_END_STATUS[d.status] ?? d.status);
      state.activity.delete(taskId);
      refreshTasksSoon();
      break;
    default:
      break;
  }
  render();
}

function onConnection(connection) {
  state.connection = connection;
  if (connection === 'down' || connection === 'reconnecting') startPolling();
  if (connection === 'live') stopPolling();
  render();
}

// --- REST -----------------------------------------------------------------------------------

async function loadChats() {
  try {
    chats = await api.chats();
    chats.sort((a, b) => String(b.createdAt).localeCompare(String(a.createdAt)));
  } catch (e) {
    toast(`Could not load the chats: ${e.message}`);
  }
  render();
}

async function refreshChat(chatId) {
  const [messages, tasks, plans] = await Promise.all([api.messages(chatId), api.tasks(chatId), api.plans(chatId)]);
  if (state.chatId !== chatId) return;
  for (const m of messages) addMessage(m);
  for (const t of tasks) upsertTask(t);
  state.plans.load(plans);
  // Tasks that ended while the stream was down are no longer active.
  for (const taskId of state.activity.keys()) {
    if (!ACTIVE.has(state.tasks.get(taskId)?.status)) state.activity.delete(taskId);
  }
  if (state.connection !== 'live') {
    for (const t of tasks) {
      if (t.status === 'running') state.activity.set(t.id, { agent: t.agent, kind: 'working', text: `is working on “${excerpt(t.instruction, 60)}”` });
      if (t.status === 'waiting') state.activity.set(t.id, { agent: t.agent, kind: 'question', text: 'needs more information from you' });
    }
    if (state.openTask && !state.events.get(state.openTask)?.length) loadDetails(state.openTask);
  }
  // A task started or woken since the person's message: the orchestrator has decided.
  if (state.deciding && tasks.some((t) => ACTIVE.has(t.status) && t.updatedAt >= state.sentAt)) state.deciding = false;
  markOpenQuestions();
  render();
}

let tasksTimer = 0;
function refreshTasksSoon() {
  clearTimeout(tasksTimer);
  const chatId = state.chatId;
  tasksTimer = setTimeout(async () => {
    try {
      const tasks = await api.tasks(chatId);
      if (state.chatId !== chatId) return;
      for (const t of tasks) {
        // A status the stream has already moved past stays; everything else comes from the store.
        const known = state.tasks.get(t.id);
        upsertTask(known && ACTIVE.has(t.status) && !ACTIVE.has(known.status) ? { ...t, status: known.status } : t);
      }
      markOpenQuestions();
      render();
    } catch {
      // the next event or poll tries again
    }
  }, 250);
}

function startPolling() {
  if (state.pollTimer) return;
  const chatId = state.chatId;
  state.pollTimer = setInterval(() => refreshChat(chatId).catch(() => {}), POLL_MS);
}

function stopPolling() {
  clearInterval(state.pollTimer);
  state.pollTimer = null;
}

async function loadDetails(taskId) {
  try {
    const details = await api.task(taskId);
    state.details.set(taskId, details);
    render();
  } catch (e) {
    toast(`Could not load the task: ${e.message}`);
  }
}

async function openChat(chatId) {
  if (state.chatId === chatId && chatId) return;
  state.stream?.close();
  stopPolling();
  state.plans.close();
  state = emptyChat(chatId);
  ui.messages.querySelectorAll('.message').forEach((n) => n.remove());
  render();
  if (!chatId) {
    ui.input.focus();
    return;
  }
  try {
    state.chat = await api.chat(chatId);
    await refreshChat(chatId);
  } catch (e) {
    toast(e instanceof ApiError && e.status === 404 ? 'That chat does not exist.' : `Could not open the chat: ${e.message}`);
    location.hash = '';
    return;
  }
  if (state.chatId !== chatId) return;
  state.stream = new ChatStream(chatId, { onEvent, onState: onConnection });
  state.stream.open();
  ui.input.focus();
}

// --- the person's actions -------------------------------------------------------------------

async function send(content) {
  const text = content.trim();
  if (!text) return;
  ui.send.disabled = true;
  try {
    let chatId = state.chatId;
    if (!chatId) {
      const created = await api.createChat(excerpt(text, 60));
      chatId = created.id;
      await loadChats();
      location.hash = `#/chat/${encodeURIComponent(chatId)}`;
      await openChat(chatId);
    }
    const waiting = waitingQuestion();
    const posted = await api.postMessage(chatId, text);
    ui.input.value = '';
    autosize();
    if (state.chatId !== chatId) return;
    addMessage({ id: posted.id, role: 'user', content: text, taskId: null, createdAt: new Date().toISOString() });
    if (waiting) state.answers.set(posted.id, waiting.task.id);
    else {
      state.deciding = true;
      state.sentAt = new Date().toISOString();
    }
    render();
  } catch (e) {
    toast(e instanceof ApiError && e.status === 413
      ? 'That message is too long.'
      : `Your message was not sent: ${e.message}`);
  } finally {
    ui.send.disabled = false;
    ui.input.focus();
  }
}

function openTask(taskId) {
  state.openTask = taskId;
  if (taskId) {
    setPanel('tasks');
    if (!state.events.get(taskId)?.length) loadDetails(taskId);
  }
  render();
  if (taskId) {
    requestAnimationFrame(() => ui.taskList.querySelector(`[data-task-id="${CSS.escape(taskId)}"]`)
      ?.scrollIntoView({ block: 'nearest', behavior: 'smooth' }));
  }
}

async function cancelTask(task) {
  try {
    await api.cancelTask(task.id);
    setStatus(task.id, 'cancelled');
    state.activity.delete(task.id);
    render();
  } catch (e) {
    toast(`Could not cancel: ${e.message}`);
  }
  refreshTasksSoon();
}

function toast(text) {
  const node = el('div.toast', { role: 'alert' }, text);
  ui.toasts.append(node);
  setTimeout(() => node.remove(), 6000);
}

function setPanel(panel) {
  ui.app.dataset.panel = panel;
  ui.scrim.hidden = !panel;
}

function autosize() {
  ui.input.style.height = 'auto';
  ui.input.style.height = `${Math.min(ui.input.scrollHeight, 200)}px`;
}

function route() {
  const match = location.hash.match(/^#\/chat\/(.+)$/);
  openChat(match ? decodeURIComponent(match[1]) : null);
}

ui.composer.addEventListener('submit', (e) => {
  e.preventDefault();
  send(ui.input.value);
});
ui.input.addEventListener('keydown', (e) => {
  if (e.key === 'Enter' && !e.shiftKey && !e.isComposing) {
    e.preventDefault();
    send(ui.input.value);
  }
});
ui.input.addEventListener('input', autosize);
ui.newChat.addEventListener('click', () => {
  setPanel('');
  if (location.hash) location.hash = '';
  else openChat(null);
});
for (const button of document.querySelectorAll('.suggestion')) {
  button.addEventListener('click', () => send(button.textContent));
}
$('toggle-tasks').addEventListener('click', () => setPanel(ui.app.dataset.panel === 'tasks' ? '' : 'tasks'));
$('close-tasks').addEventListener('click', () => setPanel(''));
$('toggle-chats').addEventListener('click', () => setPanel(ui.app.dataset.panel === 'chats' ? '' : 'chats'));
ui.scrim.addEventListener('click', () => setPanel(''));
document.addEventListener('keydown', (e) => {
  if (e.key === 'Escape') setPanel('');
});
window.addEventListener('hashchange', route);

loadChats();
route();
