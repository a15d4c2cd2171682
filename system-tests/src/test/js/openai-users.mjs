// Two users of an orchestrator with API keys, each through the official openai npm client with
// their own key: alice's conversation, continued by resending its history, stays hers; bob
// resending the very same history gets a chat of his own; bob naming alice's chat is told it does
// not exist; a wrong key is refused as the client expects. Exits 0 when all held, 1 otherwise.
//
//   node openai-users.mjs <orchestrator URL> <alice's key> <bob's key>
//
// The stack runs the offline model (libs/model OFFLINE-MODEL.md).

import OpenAI from 'openai';
import assert from 'node:assert/strict';

const [baseUrl, aliceKey, bobKey] = process.argv.slice(2);
if (!bobKey) {
  console.error('usage: node openai-users.mjs <orchestrator URL> <alice key> <bob key>');
  process.exit(2);
}
const client = (apiKey) =>
  new OpenAI({ baseURL: `${baseUrl}/v1`, apiKey, timeout: 150_000, maxRetries: 0 });
const alice = client(aliceKey);
const bob = client(bobKey);
const step = (text) => console.log(`- ${text}`);
const chatsOf = (key) =>
  fetch(`${baseUrl}/api/chats`, { headers: { Authorization: `Bearer ${key}` } }).then((r) => r.json());

try {
  const history = [{ role: 'user', content: 'Research' }];
  const asked = await alice.chat.completions.create({ model: 'agentrt', messages: history });
  const question = asked.choices[0].message.content;
  assert.match(question, /What should I research\?/);
  const alicesChat = asked.chat_id;
  step(`alice's chat ${alicesChat} asked: "${question}"`);
  history.push({ role: 'assistant', content: question }, { role: 'user', content: 'Kafka' });

  const bobs = await bob.chat.completions.create({ model: 'agentrt', messages: history });
  assert.notEqual(bobs.chat_id, alicesChat, "bob resending alice's history got alice's chat");
  step(`bob resending the same history got a chat of his own (${bobs.chat_id})`);

  const continued = await alice.chat.completions.create({ model: 'agentrt', messages: history });
  assert.equal(continued.chat_id, alicesChat);
  assert.match(continued.choices[0].message.content, /^Here is what I found about Kafka\./);
  step("alice resending it continued her chat and got the researcher's answer");

  await assert.rejects(
    bob.chat.completions.create(
      { model: 'agentrt', messages: [{ role: 'user', content: 'show me' }] },
      { headers: { 'X-Chat-Id': alicesChat } }),
    (e) => e instanceof OpenAI.NotFoundError);
  step("bob naming alice's chat in X-Chat-Id is told it does not exist (NotFoundError)");

  await assert.rejects(
    client('wrong-key-0123456789abcdef').models.list(),
    (e) => e instanceof OpenAI.AuthenticationError);
  step('a wrong key is refused (AuthenticationError)');

  const bobsChats = (await chatsOf(bobKey)).map((c) => c.id);
  const alicesChats = (await chatsOf(aliceKey)).map((c) => c.id);
  assert.ok(!bobsChats.includes(alicesChat) && bobsChats.includes(bobs.chat_id), 'bob lists only his chats');
  assert.ok(alicesChats.includes(alicesChat) && !alicesChats.includes(bobs.chat_id), 'alice lists only hers');
  step('each lists only their own chats');

  console.log('OK');
} catch (e) {
  console.error(`FAILED: ${e.stack ?? e.message}`);
  process.exitCode = 1;
}
