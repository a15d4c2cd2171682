// The official openai npm client against the orchestrator's /v1/chat/completions: a plain
// completion, a streamed one, and a conversation continued by resending its history (answering the
// researcher's question). Exits 0 when all held, 1 with the reason otherwise.
//
//   node openai-client.mjs <orchestrator URL>
//
// The stack runs the offline model (libs/model OFFLINE-MODEL.md).

import OpenAI from 'openai';
import assert from 'node:assert/strict';

const [baseUrl] = process.argv.slice(2);
if (!baseUrl) {
  console.error('usage: node openai-client.mjs <orchestrator URL>');
  process.exit(2);
}
const client = new OpenAI({ baseURL: `${baseUrl}/v1`, apiKey: 'not-needed', timeout: 150_000, maxRetries: 0 });
const step = (text) => console.log(`- ${text}`);

try {
  const models = await client.models.list();
  assert.deepEqual(models.data.map((m) => m.id), ['agentrt']);
  step('models.list() lists agentrt');

  const plain = await client.chat.completions.create({
    model: 'agentrt',
    messages: [{ role: 'user', content: 'Research Kafka' }],
  });
  const answer = plain.choices[0].message.content;
  assert.equal(plain.object, 'chat.completion');
  assert.equal(plain.choices[0].finish_reason, 'stop');
  assert.match(answer, /^Here is what I found about Kafka\./);
  assert.match(answer, /Sources: docs\//);
  step(`a plain completion answered with the researcher's answer (chat ${plain.chat_id})`);

  const stream = await client.chat.completions.create({
    model: 'agentrt',
    messages: [{ role: 'user', content: 'Research Kafka' }],
    stream: true,
  });
  let streamed = '';
  let finish = null;
  let chunks = 0;
  for await (const chunk of stream) {
    chunks += 1;
    streamed += chunk.choices[0]?.delta?.content ?? '';
    finish = chunk.choices[0]?.finish_reason ?? finish;
  }
  assert.equal(finish, 'stop');
  assert.ok(chunks > 1, `the answer came in ${chunks} chunk(s)`);
  assert.equal(streamed, answer, 'the streamed deltas, joined, are the answer a plain request gets');
  step(`a streamed completion came in ${chunks} chunks that join into the same answer`);

  const history = [{ role: 'user', content: 'Research' }];
  const asked = await client.chat.completions.create({ model: 'agentrt', messages: history });
  const question = asked.choices[0].message.content;
  assert.match(question, /needs more information: What should I research\?/);
  step(`the researcher asked: "${question}"`);

  history.push({ role: 'assistant', content: question }, { role: 'user', content: 'Kafka' });
  const continued = await client.chat.completions.create({ model: 'agentrt', messages: history, stream: true });
  let reply = '';
  for await (const chunk of continued) reply += chunk.choices[0]?.delta?.content ?? '';
  assert.match(reply, /^Here is what I found about Kafka\./);
  assert.match(reply, /Sources: docs\//);
  const chat = await fetch(`${baseUrl}/api/chats/${encodeURIComponent(asked.chat_id)}/messages`).then((r) => r.json());
  assert.deepEqual(chat.map((m) => m.content), ['Research', question, 'Kafka', reply],
    'resending the history continued the same chat: the answer went to the researcher');
  step('resending the history with the answer continued the same chat and got the final answer, streamed');

  await assert.rejects(
    client.chat.completions.create({ model: 'gpt-nope', messages: [{ role: 'user', content: 'hi' }] }),
    (e) => e instanceof OpenAI.BadRequestError && e.code === 'model_not_found' && /gpt-nope/.test(e.message));
  step('an unknown model is refused as the client expects (BadRequestError, code model_not_found)');

  console.log('OK');
} catch (e) {
  console.error(`FAILED: ${e.stack ?? e.message}`);
  process.exitCode = 1;
}
