// The orchestrator's REST API: the initial state of the page and the person's actions.

/** A refused or failed request, with the reason the server gave. */
export class ApiError extends Error {
  constructor(status, message) {
    super(message);
    this.status = status;
  }
}

async function request(method, path, body) {
  let response;
  try {
    response = await fetch(path, {
      method,
      headers: body === undefined ? {} : { 'Content-Type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch {
    throw new ApiError(0, 'The server cannot be reached.');
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
  eventsUrl: (id, after) => `${chat(id)}/events${after == null ? '' : `?after=${after}`}`,
};
