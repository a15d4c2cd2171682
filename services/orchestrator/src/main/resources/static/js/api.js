// The orchestrator's REST API: the initial state of the page and the person's actions.

/** A refused or failed request, with the reason the server gave. */
export class ApiError extends Error {
  constructor(status, message) {
    super(message);
    this.status = status;
  }
}

// When the server needs an API key (it answers 401), the person is asked for one; it is kept for
// this tab only (sessionStorage) and sent as `Authorization: Bearer <key>`.
const KEY = 'agentrt.apiKey';
let asking = null;

function apiKey() {
  return sessionStorage.getItem(KEY);
}

/** Asks for a key once, however many requests are waiting for it. */
function askForKey(wrong) {
  asking ??= new Promise((resolve) => {
    const dialog = document.getElementById('sign-in');
    const input = document.getElementById('api-key');
    document.getElementById('sign-in-error').hidden = !wrong;
    input.value = '';
    dialog.addEventListener('close', () => {
      asking = null;
      sessionStorage.setItem(KEY, input.value.trim());
      resolve();
    }, { once: true });
    dialog.showModal();
  });
  return asking;
}

async function request(method, path, body) {
  let response;
  for (;;) {
    const headers = body === undefined ? {} : { 'Content-Type': 'application/json' };
    const key = apiKey();
    if (key) headers.Authorization = `Bearer ${key}`;
    try {
      response = await fetch(path, {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    } catch {
      throw new ApiError(0, 'The server cannot be reached.');
    }
    if (response.status !== 401) break;
    await askForKey(Boolean(key));
  }
  if (!response.ok) {
    let reason = `${response.status} ${response.statusText}`.trim();
    try {
      const problem = await response.json();
      reason = problem.detail || problem.error?.message || problem.title || reason;
    } catch {
      // not JSON: keep the status line
    }
    throw new ApiError(response.status, reason);
  }
  return response.json();
}

const chat = (id) => `api/chats/${encodeURIComponent(id)}`;

export const api = {
  chats: () => request('GET', 'api/chats'),
  createChat: (title) => request('POST', 'api/chats', { title }),
  chat: (id) => request('GET', chat(id)),
  messages: (id) => request('GET', `${chat(id)}/messages`),
  tasks: (id) => request('GET', `${chat(id)}/tasks`),
  postMessage: (id, content) => request('POST', `${chat(id)}/messages`, { content }),
  task: (taskId) => request('GET', `api/tasks/${encodeURIComponent(taskId)}`),
  cancelTask: (taskId) => request('POST', `api/tasks/${encodeURIComponent(taskId)}/cancel`),
  replayTurn: (taskId, turn) => request('POST', `api/tasks/${encodeURIComponent(taskId)}/turns/${turn}/replay`),
  feedback: (id, feedback) => request('POST', `${chat(id)}/feedback`, feedback),
  plans: (id) => request('GET', `${chat(id)}/plans`),
  plan: (planId) => request('GET', `api/plans/${encodeURIComponent(planId)}`),
  cancelPlan: (planId) => request('POST', `api/plans/${encodeURIComponent(planId)}/cancel`),
  // EventSource cannot send headers: the key goes in the query, for this one endpoint.
  eventsUrl: (id, after) => {
    const query = new URLSearchParams();
    if (after != null) query.set('after', after);
    if (apiKey()) query.set('access_token', apiKey());
    return `${chat(id)}/events${query.size ? `?${query}` : ''}`;
  },
};
