// A chat's run events over Server-Sent Events.
//
// EventSource reconnects by itself after a dropped connection and sends Last-Event-ID, so the
// server replays what was missed. When the browser gives up (an error status, the server gone for
// good), this reconnects with ?after=<last position seen>, backing off up to 30 s. Events at or
// below the last position are dropped, so a replay never shows anything twice.

import { api } from './api.js';

// EventSource hands over only the named events it listens to: every type of the ledger.
export const EVENT_TYPES = [
  'message', 'handoff', 'run_start', 'step_start', 'step_end', 'tool_call_start',
  'tool_call_result', 'question', 'user_answer', 'budget_warning', 'error', 'run_end',
  'delegation_start', 'delegation_end', 'approval_requested', 'approval_decided', 'guidance',
  'plan_created', 'plan_node_started', 'plan_node_ended', 'plan_node_skipped', 'plan_end',
];

export class ChatStream {
  /**
   * @param {string} chatId
   * @param {{onEvent: (event: object) => void, onState: (state: string, detail?: string) => void}} handlers
   *   states: connecting, live, reconnecting, down
   */
  constructor(chatId, handlers) {
    this.chatId = chatId;
    this.handlers = handlers;
    this.lastSeq = 0;
    this.source = null;
    this.retryDelay = 1000;
    this.retryTimer = null;
    this.closed = false;
  }

  /** Opens the stream from the start of the chat's ledger. */
  open() {
    this.connect(0);
  }

  connect(after) {
    if (this.closed) return;
    this.handlers.onState(this.lastSeq === 0 ? 'connecting' : 'reconnecting');
    const source = new EventSource(api.eventsUrl(this.chatId, after));
    this.source = source;
    const receive = (message) => this.receive(message);
    for (const type of EVENT_TYPES) source.addEventListener(type, receive);
    source.onopen = () => {
      this.retryDelay = 1000;
      this.handlers.onState('live');
    };
    source.onerror = () => {
      if (this.closed || source !== this.source) return;
      if (source.readyState === EventSource.CONNECTING) {
        // The browser retries by itself, with Last-Event-ID.
        this.handlers.onState('reconnecting');
        return;
      }
      source.close();
      this.handlers.onState('down', `retrying in ${Math.round(this.retryDelay / 1000)} s`);
      this.retryTimer = setTimeout(() => this.connect(this.lastSeq), this.retryDelay);
      this.retryDelay = Math.min(this.retryDelay * 2, 30000);
    };
  }

  /** Reconnects now, e.g. when the person asks to. */
  reconnect() {
    clearTimeout(this.retryTimer);
    this.source?.close();
    this.retryDelay = 1000;
    this.connect(this.lastSeq);
  }

  receive(message) {
    let event;
    try {
      event = JSON.parse(message.data);
    } catch {
      return;
    }
    const seq = Number(event.seq ?? message.lastEventId);
    if (!(seq > this.lastSeq)) return;
    this.lastSeq = seq;
    this.handlers.onEvent(event);
  }

  close() {
    this.closed = true;
    clearTimeout(this.retryTimer);
    this.source?.close();
  }
}
