// The web UI in Debian's Chromium, driven by playwright-core: a person creates a chat, asks for
// research, watches the live activity, answers the researcher's question and sees the final answer
// rendered as Markdown; then cancels a task, approves and rejects notes, guides a running agent,
// watches a plan run as a graph and picks an option, at desktop and phone widths. Exits 0 when
// everything was seen, 1 with the reason otherwise.
//
//   node browser-ui.mjs <orchestrator URL> <screenshot directory> [API key]
//
// With an API key, the server is one that requires keys: the page must ask for it first.
//
// The stack runs the offline model (libs/model OFFLINE-MODEL.md): "Research" alone makes the
// researcher ask "What should I research?"; the answer "Kafka" makes it search, read and answer
// with "**Kafka** (docs/...)" and a Sources line. "Save a note: …" waits for approval; "Choose a
// colour for the logo" asks with three options; "Discuss it with the researcher" keeps the analyst
// running while its researcher asks what "it" is; "Write a report on Kafka and MongoDB" is a plan
// of two researchers and a writer.

import { commandLine, launchChromium } from './browser.mjs';
import { join } from 'node:path';

const { baseUrl, screenshots, more: [apiKey] } = commandLine('browser-ui.mjs');

const TIMEOUT = 60_000;
const browser = await launchChromium();
const step = (text) => console.log(`- ${text}`);
// A server with keys: the page asks for one (each tab keeps its own).
const signIn = async (tab) => {
  const dialog = tab.getByRole('dialog', { name: 'API key' });
  await dialog.waitFor({ timeout: TIMEOUT });
  await dialog.getByLabel('API key').fill(apiKey);
  await dialog.getByRole('button', { name: 'Continue' }).click();
  await dialog.waitFor({ state: 'hidden', timeout: TIMEOUT });
};
let page;
try {
  page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  const problems = [];
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  page.on('console', (m) => { if (m.type() === 'error') console.log(`  (browser console) ${m.text()}`); });

  await page.goto(baseUrl, { waitUntil: 'domcontentloaded' });
  if (apiKey) {
    await signIn(page);
    step('the page asked for the API key');
  }
  await page.getByRole('heading', { name: 'What should we look into?' }).waitFor({ timeout: TIMEOUT });
  step('the UI is served at / and shows the welcome screen');

  await page.getByRole('button', { name: 'New chat' }).click();
  const input = page.getByRole('textbox', { name: 'Message' });
  await input.fill('Research');
  await input.press('Enter');
  await page.waitForURL(/#\/chat\//, { timeout: TIMEOUT });
  const chatId = decodeURIComponent(page.url().split('#/chat/')[1]);
  step(`Enter sent the first message and created chat ${chatId}`);
  await page.locator('.chat-list .chat-item[aria-current="page"]', { hasText: 'Research' }).waitFor({ timeout: TIMEOUT });
  await page.locator('.message.user', { hasText: 'Research' }).waitFor({ timeout: TIMEOUT });

  // Live activity: the researcher at work or, at the latest, waiting for the person.
  const activity = page.locator('#activity .activity-row', { hasText: 'Researcher' });
  await activity.first().waitFor({ timeout: TIMEOUT });
  step(`live activity appeared: "${(await activity.first().innerText()).replace(/\s+/g, ' ')}"`);

  const question = page.locator('.message.open-question');
  await question.waitFor({ timeout: TIMEOUT });
  const questionText = await question.innerText();
  if (!/What should I research\?/.test(questionText)) throw new Error(`unexpected question: ${questionText}`);
  await page.locator('.task.attention', { hasText: 'Researcher' }).waitFor({ timeout: TIMEOUT });
  await page.locator('#replying', { hasText: 'Researcher' }).waitFor({ timeout: TIMEOUT });
  step('the question is highlighted, with its task, and the composer says the next message answers it');
  await page.screenshot({ path: join(screenshots, 'question.png') });

  await input.fill('Kafka');
  await input.press('Enter');
  await page.locator('.message.user.answer', { hasText: 'Kafka' }).waitFor({ timeout: TIMEOUT });
  step('the answer is shown as going to the Researcher');

  const final = page.locator('.message.assistant', { hasText: 'Sources' });
  await final.waitFor({ timeout: TIMEOUT });
  const bold = final.locator('.markdown strong', { hasText: 'Kafka' });
  await bold.waitFor({ timeout: TIMEOUT });
  step('the final answer arrived, its Markdown rendered (its bold title)');

  await page.locator('.task.status-success', { hasText: 'Researcher' }).waitFor({ timeout: TIMEOUT });
  await page.locator('.task .task-head', { hasText: 'Researcher' }).first().click();
  const timeline = page.locator('.task.open .timeline');
  await timeline.waitFor({ timeout: TIMEOUT });
  await timeline.locator('.entry-tool', { hasText: 'search_docs' }).first().waitFor({ timeout: TIMEOUT });
  await timeline.locator('.entry-step').first().waitFor({ timeout: TIMEOUT });
  // The waterfall: the model turns and the tool calls as bars on one time axis.
  await page.locator('.task.open .waterfall .bar-tool').first().waitFor({ timeout: TIMEOUT });
  const bars = await page.locator('.task.open .waterfall .bar').count();
  if (bars < 3) throw new Error(`the waterfall shows ${bars} bars, not the turns and the tool calls`);
  await timeline.locator('.entry-tool summary', { hasText: 'read_doc' }).first().click();
  await timeline.locator('.entry-tool details[open] pre', { hasText: 'docs/' }).first().waitFor({ timeout: TIMEOUT });
  step('the task is done; its waterfall and its timeline show model turns and tool calls with arguments and results');
  // Replay a model turn: the recorded and the new answer side by side (the offline model: the same).
  await timeline.locator('.entry-step .replay-button').last().click();
  await timeline.locator('.replay-pair').waitFor({ timeout: TIMEOUT });
  await timeline.locator('.replay', { hasText: 'The same answer.' }).waitFor({ timeout: TIMEOUT });
  step('Replay on the last model turn shows the recorded and the replayed answer side by side: the same');
  await page.waitForTimeout(300); // let the last animation settle for the screenshot
  await page.screenshot({ path: join(screenshots, 'web-ui.png') });

  await page.setViewportSize({ width: 390, height: 844 });
  await page.keyboard.press('Escape'); // closes the task panel, which slides over at this width
  await page.locator('#toggle-tasks').waitFor({ state: 'visible', timeout: TIMEOUT });
  await page.waitForTimeout(400); // the panel's slide
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  if (overflow > 0) throw new Error(`at phone width the page is ${overflow}px wider than the screen`);
  await page.screenshot({ path: join(screenshots, 'web-ui-phone.png') });
  step('at phone width nothing overflows and the tasks sit behind a button');

  // A lost stream: visible, the page keeps up from the REST API, and reconnecting shows no duplicates.
  const again = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  await again.route('**/events**', (route) => route.abort());
  await again.goto(`${baseUrl}/#/chat/${encodeURIComponent(chatId)}`, { waitUntil: 'domcontentloaded' });
  if (apiKey) await signIn(again);
  await again.locator('#banner', { hasText: 'Lost the live connection' }).waitFor({ timeout: TIMEOUT });
  await again.locator('.message.assistant', { hasText: 'Sources' }).waitFor({ timeout: TIMEOUT });
  const shown = await again.locator('.message').count();
  await again.unroute('**/events**');
  // The browser may get there first by retrying by itself; else the button reconnects with ?after=.
  await again.getByRole('button', { name: 'Reconnect now' }).click({ timeout: 5_000 }).catch(() => {});
  await again.locator('#connection[data-state="live"]').waitFor({ timeout: TIMEOUT });
  await again.locator('#banner').waitFor({ state: 'hidden', timeout: TIMEOUT });
  const afterReplay = await again.locator('.message').count();
  if (shown !== 4 || afterReplay !== 4) throw new Error(`expected 4 messages before and after reconnecting, saw ${shown} and ${afterReplay}`);
  step('a lost stream shows a banner, the chat still loads, and reconnecting replays without duplicates');
  await again.close();

  // Cancelling a task that waits for an answer, from its card.
  await page.setViewportSize({ width: 1400, height: 900 });
  await page.getByRole('button', { name: 'New chat' }).click();
  await page.locator('#welcome').waitFor({ timeout: TIMEOUT });
  await input.fill('Research');
  await input.press('Enter');
  await page.locator('.message.open-question').waitFor({ timeout: TIMEOUT });
  await page.locator('.task.status-waiting').getByRole('button', { name: 'Cancel' }).click();
  await page.locator('.task.status-cancelled', { hasText: 'Researcher' }).waitFor({ timeout: TIMEOUT });
  await page.locator('#replying').waitFor({ state: 'hidden', timeout: TIMEOUT });
  await page.locator('#activity .kind-question').waitFor({ state: 'detached', timeout: TIMEOUT });
  step('a waiting task is cancelled from its card: Cancelled, and no more question pending');

  // A note the scribe may write only once approved: the request has Approve and Reject.
  await page.getByRole('button', { name: 'New chat' }).click();
  await page.locator('#welcome').waitFor({ timeout: TIMEOUT });
  await input.fill('Save a note: approved in the browser');
  await input.press('Enter');
  const approval = page.locator('.message .approval');
  await approval.getByRole('button', { name: 'Approve' }).waitFor({ timeout: TIMEOUT });
  const asking = page.locator('.message.open-approval');
  await asking.locator('.tag', { hasText: 'Approval needed' }).waitFor({ timeout: TIMEOUT });
  await asking.locator('.approval-what code', { hasText: 'write_note' }).waitFor({ timeout: TIMEOUT });
  await asking.locator('pre.approval-args', { hasText: 'approved in the browser' }).waitFor({ timeout: TIMEOUT });
  await page.screenshot({ path: join(screenshots, 'approval.png') });
  await approval.getByRole('button', { name: 'Approve' }).click();
  await approval.locator('.approval-outcome', { hasText: 'Approved' }).waitFor({ timeout: TIMEOUT });
  await page.locator('.message', { hasText: 'Saved the note' }).waitFor({ timeout: TIMEOUT });
  step('a note is approved from its request (labelled an approval, naming write_note and its arguments): Approved, then the scribe says where it saved it');

  const newChat = async () => {
    // On a phone the chat list, with New chat, slides in behind ☰.
    if (await page.locator('#toggle-chats').isVisible()) await page.locator('#toggle-chats').click();
    await page.getByRole('button', { name: 'New chat' }).click();
    await page.locator('#welcome').waitFor({ timeout: TIMEOUT });
  };
  const say = async (text) => {
    await input.fill(text);
    await input.press('Enter');
  };
  const noOverflow = async (where) => {
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    if (overflow > 0) throw new Error(`${where}: the page is ${overflow}px wider than the phone's screen`);
  };

  // Guidance for a running agent: the analyst runs while the researcher it asked waits for the
  // person (what is "it"?), so its task is caught running; the guidance is its next turn's request.
  await newChat();
  await say('Discuss it with the researcher');
  await page.locator('.message.open-question', { hasText: 'What should I research?' }).waitFor({ timeout: TIMEOUT });
  const analyst = page.locator('.task.status-running', { hasText: 'Analyst' });
  await analyst.getByRole('textbox', { name: 'Guide the Analyst' }).fill('Focus on MongoDB instead');
  await analyst.getByRole('button', { name: 'Guide', exact: true }).click();
  await page.locator('.task', { hasText: 'Analyst' }).locator('.task-guided', { hasText: 'Focus on MongoDB instead' })
    .waitFor({ timeout: TIMEOUT });
  await page.screenshot({ path: join(screenshots, 'guide.png') });
  await say('Kafka');
  await page.locator('.message.assistant', { hasText: 'Here is what the researchers found about MongoDB.' }).waitFor({ timeout: TIMEOUT });
  step('a running analyst is guided from its Guide box; its answer follows the guidance (MongoDB)');

  // The rest at phone width: a plan as a graph, a question's options, a rejected note.
  await page.setViewportSize({ width: 390, height: 844 });
  await newChat();
  await say('Write a report on Kafka and MongoDB');
  const plan = page.locator('.plan');
  await plan.locator('.plan-node[data-node="write"]').waitFor({ timeout: TIMEOUT });
  const boxes = await plan.locator('.plan-node').count();
  const arrows = await plan.locator('.plan-edge').count();
  if (boxes !== 3 || arrows !== 2) throw new Error(`the plan shows ${boxes} boxes and ${arrows} arrows, not 3 and 2`);
  await page.locator('.plan[data-status="success"]').waitFor({ timeout: TIMEOUT });
  const done = await plan.locator('.plan-node.node-success', { hasText: 'Done' }).count();
  if (done !== 3) throw new Error(`${done} of the plan's 3 boxes say Done`);
  const legend = (await plan.locator('.plan-legend').innerText()).replace(/\s+/g, ' ');
  for (const word of ['Waiting', 'Running', 'Done', 'Failed', 'Skipped', 'Cancelled']) {
    if (!legend.includes(word)) throw new Error(`the legend does not say ${word}: ${legend}`);
  }
  await page.locator('.message.assistant h1', { hasText: 'Report on Kafka and MongoDB' }).waitFor({ timeout: TIMEOUT });
  await noOverflow('a plan');
  await plan.evaluate((node) => node.scrollIntoView()); // in one step: a re-render may replace it
  await page.screenshot({ path: join(screenshots, 'plan-phone.png') });
  await plan.locator('.plan-node[data-node="write"]').click();
  await page.locator('.task.open', { hasText: 'Writer' }).locator('.timeline').waitFor({ timeout: TIMEOUT });
  await page.waitForTimeout(400); // the panel's slide
  await page.screenshot({ path: join(screenshots, 'plan-node-phone.png') });
  await page.keyboard.press('Escape');
  step('a report is a plan drawn as a graph (3 boxes, 2 arrows, a legend in words), all Done; its writer box opens the writer\'s task');

  await newChat();
  await say('Choose a colour for the logo');
  const choices = page.locator('.message.open-question .choices');
  await choices.getByRole('button', { name: 'Amber' }).waitFor({ timeout: TIMEOUT });
  const offered = await choices.getByRole('button').allInnerTexts();
  if (offered.join(',') !== 'Teal,Amber,Violet') throw new Error(`the question offers ${offered}`);
  await noOverflow('a question with options');
  await page.screenshot({ path: join(screenshots, 'choose-phone.png') });
  await choices.getByRole('button', { name: 'Amber' }).click();
  await page.locator('.message.user.answer', { hasText: 'Amber' }).waitFor({ timeout: TIMEOUT });
  await page.locator('.message.assistant', { hasText: 'You chose Amber.' }).waitFor({ timeout: TIMEOUT });
  step('a question with options shows them as buttons; Amber is sent as the answer and the assistant names it');

  await newChat();
  const longNote = `rejected in the browser, ${'with a long body '.repeat(20)}and THE END`;
  await say(`Save a note: ${longNote}`);
  const rejecting = page.locator('.message.open-approval');
  const folded = rejecting.locator('details.approval-args');
  await folded.waitFor({ timeout: TIMEOUT });
  if (await folded.locator('pre').isVisible()) throw new Error('long arguments are not folded');
  await folded.locator('summary').click();
  await folded.locator('pre', { hasText: 'THE END' }).waitFor({ state: 'visible', timeout: TIMEOUT });
  await noOverflow('an approval request');
  await page.screenshot({ path: join(screenshots, 'approval-phone.png') });
  await rejecting.getByLabel('Reason').fill('not today');
  await rejecting.getByRole('button', { name: 'Reject' }).click();
  await page.locator('.message .approval-outcome', { hasText: 'Rejected' }).waitFor({ timeout: TIMEOUT });
  await page.locator('.message.assistant', { hasText: 'I did not save the note: not today.' }).waitFor({ timeout: TIMEOUT });
  step('a long note\'s arguments are folded and shown whole on unfold; rejected with a reason, the scribe says why');

  if (problems.length) throw new Error(problems.join('\n'));
  console.log(`OK, screenshots in ${screenshots}`);
} catch (e) {
  console.error(`FAILED: ${e.message}`);
  if (page) await page.screenshot({ path: join(screenshots, 'failure.png') }).catch(() => {});
  process.exitCode = 1;
} finally {
  await browser.close();
}
