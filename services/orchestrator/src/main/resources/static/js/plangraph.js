// The chat's plans as graphs: a box per node in columns by dependency depth, an arrow per
// dependency, each box coloured by its status and labelled with an icon and a word (colour is never
// the only sign), kept current by the plans' run events. A node that has started opens its task.

import { api, ApiError } from './api.js';
import { el, agentName, excerpt } from './view.js';

/** A node's status as shown: an icon and a word. */
export const NODE_STATUS = {
  pending: { icon: '○', label: 'Waiting' },
  running: { icon: '▶', label: 'Running' },
  success: { icon: '✓', label: 'Done' },
  failed: { icon: '✕', label: 'Failed' },
  skipped: { icon: '⤼', label: 'Skipped' },
  cancelled: { icon: '■', label: 'Cancelled' },
};

const PLAN_STATUS = {
  running: { icon: '▶', label: 'Running' },
  success: { icon: '✓', label: 'Done' },
  partial: { icon: '◐', label: 'Partly done' },
  failed: { icon: '✕', label: 'Failed' },
  cancelled: { icon: '■', label: 'Cancelled' },
};

/** How far a node's status has come: it never goes back, whatever order news arrives in. */
const PROGRESS = { pending: 0, running: 1, success: 2, failed: 2, skipped: 2, cancelled: 2 };

const BOX = { width: 168, height: 74, columnGap: 48, rowGap: 14, arrow: 8 };

const SVG = 'http://www.w3.org/2000/svg';

// --- the plan's state ----------------------------------------------------------------------

/**
 * A plan run event applied to the chat's plans (planId -> plan, as GET /api/plans/{id} shows
 * them). Returns the plan's id.
 */
export function applyPlanEvent(plans, event) {
  const d = event.data ?? {};
  const plan = plans.get(d.planId);
  if (event.type === 'plan_created') {
    if (!plan) {
      plans.set(d.planId, {
        id: d.planId, status: 'running', cancelRequested: false, createdAt: event.at,
        nodes: (d.nodes ?? []).map((n) => ({ ...n, status: 'pending' })),
      });
    }
    return d.planId;
  }
  if (!plan) return d.planId; // its plan_created comes first; a read of the plan brings it anyway
  const node = plan.nodes.find((n) => n.id === d.node);
  const move = (status, fields) => {
    if (node && PROGRESS[status] > PROGRESS[node.status]) Object.assign(node, { status }, fields);
  };
  switch (event.type) {
    case 'plan_node_started': move('running', { startedAt: event.at }); break;
    case 'plan_node_ended': move(d.status, { endedAt: event.at, error: d.error }); break;
    case 'plan_node_skipped': move('skipped', { endedAt: event.at, error: d.reason }); break;
    case 'plan_end':
      plan.status = d.status;
      plan.endedAt = event.at;
      break;
    default: break;
  }
  return d.planId;
}

/** A plan as read from the API, keeping what the stream has already moved further on. */
export function mergePlan(known, read) {
  if (!known?.nodes) return read;
  const nodes = read.nodes.map((n) => {
    const seen = known.nodes.find((k) => k.id === n.id);
    return seen && PROGRESS[seen.status] > PROGRESS[n.status] ? { ...n, ...seen, instruction: n.instruction } : n;
  });
  const ended = known.status !== 'running' && read.status === 'running';
  return {
    ...read,
    nodes,
    status: ended ? known.status : read.status,
    cancelRequested: read.cancelRequested || known.cancelRequested,
  };
}

// --- layout --------------------------------------------------------------------------------

/**
 * Where each node's box goes: a column per dependency depth (a node with no dependency in the
 * first, every other one column after its deepest dependency), the plan's order down each column,
 * columns centred on each other. Returns {at: id -> {column, x, y}, width, height} in pixels.
 */
export function layout(nodes) {
  const byId = new Map(nodes.map((n) => [n.id, n]));
  const depth = new Map();
  const depthOf = (id, path = new Set()) => {
    if (depth.has(id)) return depth.get(id);
    if (path.has(id)) return 0; // a cycle: a validated plan has none
    path.add(id);
    const deps = (byId.get(id)?.dependsOn ?? []).filter((dep) => byId.has(dep));
    const value = deps.length ? 1 + Math.max(...deps.map((dep) => depthOf(dep, path))) : 0;
    depth.set(id, value);
    return value;
  };
  const columns = [];
  for (const n of nodes) (columns[depthOf(n.id)] ??= []).push(n.id);
  const extent = (count) => count * BOX.height + Math.max(0, count - 1) * BOX.rowGap;
  const height = extent(Math.max(0, ...columns.map((c) => c.length)));
  const at = new Map();
  columns.forEach((ids, column) => {
    const top = (height - extent(ids.length)) / 2;
    ids.forEach((id, row) => at.set(id, {
      column,
      x: column * (BOX.width + BOX.columnGap),
      y: top + row * (BOX.height + BOX.rowGap),
    }));
  });
  return { at, width: Math.max(0, columns.length * (BOX.width + BOX.columnGap) - BOX.columnGap), height };
}

// --- drawing -------------------------------------------------------------------------------

function svg(tag, attributes) {
  const node = document.createElementNS(SVG, tag);
  for (const [key, value] of Object.entries(attributes)) node.setAttribute(key, value);
  return node;
}

/** An arrow from the right of one box to the left of another. */
function arrow(from, to, status) {
  const x1 = from.x + BOX.width;
  const y1 = from.y + BOX.height / 2;
  const x2 = to.x - BOX.arrow;
  const y2 = to.y + BOX.height / 2;
  const bend = (x2 - x1) / 2;
  const group = svg('g', { class: `plan-edge edge-${status}` });
  group.append(
    svg('path', { d: `M${x1},${y1} C${x1 + bend},${y1} ${x2 - bend},${y2} ${x2},${y2}` }),
    svg('polygon', { points: `${to.x},${y2} ${x2},${y2 - 4.5} ${x2},${y2 + 4.5}` }));
  return group;
}

function nodeBox(node, place, onOpenTask) {
  const shown = NODE_STATUS[node.status] ?? { icon: '?', label: node.status };
  const started = node.status !== 'pending' && node.status !== 'skipped';
  const task = excerpt(String(node.instruction ?? node.id).split('\n')[0], 64);
  const box = el(`button.plan-node.node-${node.status}`, {
    type: 'button',
    disabled: !started,
    title: [`${node.id}: ${task}`, node.error, started ? 'Open its task' : 'Not started'].filter(Boolean).join('\n'),
    dataset: { node: node.id, taskId: node.taskId },
    onclick: () => onOpenTask(node.taskId),
  },
  el('span.node-agent', {}, agentName(node.agent)),
  el('span.node-task', {}, task),
  el('span.node-status', {}, el('span.node-icon', { 'aria-hidden': 'true' }, shown.icon), ` ${shown.label}`));
  // Positions through the CSSOM: the page's Content-Security-Policy forbids style attributes.
  box.style.left = `${place.x}px`;
  box.style.top = `${place.y}px`;
  box.style.width = `${BOX.width}px`;
  box.style.height = `${BOX.height}px`;
  return box;
}

function legend() {
  return el('ul.plan-legend', { 'aria-label': 'What the colours mean' },
    Object.entries(NODE_STATUS).map(([status, { icon, label }]) =>
      el(`li.legend-item.legend-${status}`, {}, el('span.legend-icon', { 'aria-hidden': 'true' }, icon), label)));
}

/**
 * The plan as a graph with its status, progress, a Cancel plan button while it runs and a legend.
 * onOpenTask(taskId) opens a node's task; onCancel() cancels the plan.
 */
export function planGraph(plan, { onOpenTask, onCancel }) {
  const { at, width, height } = layout(plan.nodes);
  const byId = new Map(plan.nodes.map((n) => [n.id, n]));
  const edges = svg('svg', {
    class: 'plan-edges', width, height, viewBox: `0 0 ${width} ${height}`, 'aria-hidden': 'true',
  });
  for (const node of plan.nodes) {
    for (const dep of node.dependsOn ?? []) {
      if (byId.has(dep)) edges.append(arrow(at.get(dep), at.get(node.id), byId.get(dep).status));
    }
  }
  const canvas = el('div.plan-canvas', {}, edges, plan.nodes.map((n) => nodeBox(n, at.get(n.id), onOpenTask)));
  canvas.style.width = `${width}px`;
  canvas.style.height = `${height}px`;

  const status = PLAN_STATUS[plan.status] ?? { icon: '?', label: plan.status };
  const done = plan.nodes.filter((n) => n.status === 'success').length;
  const running = plan.status === 'running';
  return el(`section.plan.plan-${plan.status}`, { dataset: { planId: plan.id, status: plan.status }, 'aria-label': 'Plan' },
    el('header.plan-head', {},
      el('span.plan-title', {}, 'Plan'),
      el('span.plan-badge', {}, el('span', { 'aria-hidden': 'true' }, status.icon), ` ${status.label}`),
      el('span.plan-progress', {}, `${done} of ${plan.nodes.length} done`),
      running && !plan.cancelRequested
        ? el('button.button.small.danger-ghost.plan-cancel', { type: 'button', onclick: onCancel }, 'Cancel plan')
        : null,
      running && plan.cancelRequested ? el('span.plan-progress', {}, 'Cancelling…') : null),
    el('div.plan-scroll', {}, canvas),
    legend());
}

// --- the open chat's plans -----------------------------------------------------------------

/**
 * The plans of one chat: read from the API, kept current by their run events, each drawn in
 * container right after the person's message it answers (messageNode(id) finds it).
 */
export class ChatPlans {
  constructor({ container, messageNode, onOpenTask, onChange, toast }) {
    Object.assign(this, { container, messageNode, onOpenTask, onChange, toast });
    this.plans = new Map(); // planId -> plan, as GET /api/plans/{id} shows it
    this.views = new Map(); // planId -> {key, node}: the graph as drawn
    this.timers = new Map();
    this.closed = false;
  }

  /** Plans as GET /api/chats/{id}/plans reads them. */
  load(plans) {
    for (const plan of plans) this.plans.set(plan.id, mergePlan(this.plans.get(plan.id), plan));
  }

  /** A plan run event; the plan is read for what events do not carry, and again at its end. */
  apply(event) {
    const planId = applyPlanEvent(this.plans, event);
    if (!this.plans.get(planId)?.messageId || event.type === 'plan_end') this.readSoon(planId);
  }

  readSoon(planId) {
    clearTimeout(this.timers.get(planId));
    this.timers.set(planId, setTimeout(async () => {
      this.timers.delete(planId);
      try {
        const plan = await api.plan(planId);
        if (this.closed) return;
        this.load([plan]);
        this.onChange();
      } catch {
        // the next event or poll reads it again
      }
    }, 250));
  }

  async cancel(planId) {
    try {
      this.load([await api.cancelPlan(planId)]);
      this.onChange();
    } catch (e) {
      this.toast(e instanceof ApiError && e.status === 409 ? 'That plan has already ended.' : `Could not cancel the plan: ${e.message}`);
      this.readSoon(planId);
    }
  }

  /** Draws each plan that changed since it was last drawn. */
  render() {
    for (const plan of this.plans.values()) {
      // Only what the graph shows: a read that adds the answer or end times draws nothing again.
      const key = JSON.stringify([plan.status, plan.cancelRequested, plan.nodes.map((n) =>
        [n.id, n.agent, n.instruction, n.dependsOn, n.status, n.taskId, n.error])]);
      const shown = this.views.get(plan.id);
      if (shown?.key === key) continue;
      const node = planGraph(plan, { onOpenTask: this.onOpenTask, onCancel: () => this.cancel(plan.id) });
      if (shown) {
        const scroll = shown.node.querySelector('.plan-scroll').scrollLeft;
        shown.node.replaceWith(node);
        node.querySelector('.plan-scroll').scrollLeft = scroll;
      } else {
        const request = this.messageNode(plan.messageId);
        if (request) request.after(node);
        else this.container.append(node);
      }
      this.views.set(plan.id, { key, node });
    }
  }

  /** Stops reading and removes the graphs: another chat opens. */
  close() {
    this.closed = true;
    for (const timer of this.timers.values()) clearTimeout(timer);
    for (const { node } of this.views.values()) node.remove();
  }
}
