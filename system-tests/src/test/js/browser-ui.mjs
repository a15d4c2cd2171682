// The web UI in Debian's Chromium, driven by playwright-core: a person creates a chat, asks for
// research, watches the live activity, answers the researcher's question and sees the final answer
// rendered as Markdown. Exits 0 when everything was seen, 1 with the reason otherwise.
//
//   node browser-ui.mjs <orchestrator URL> <screenshot directory> [API key]
//
// With an API key, the server is one that requires keys: the page must ask for it first.
//
// The stack runs the offline model (libs/model OFFLINE-MODEL.md): "Research" alone makes the
// researcher ask "What should I research?"; the answer "Kafka" makes it search, read and answer
// with "**Kafka** (docs/...)" and a Sources line.

import { chromium } from 'playwright-core';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';

const [baseUrl, screenshots = 'target/browser', apiKey] = process.argv.slice(2);
if (!baseUrl) {
  console.error('usage: node browser-ui.mjs <orchestrator URL> [screenshot directory]');
  process.exit(2);
}
mkdirSync(screenshots, { recursive: true });

const TIMEOUT = 60_000;
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
    '--disable-background-networking', '--disable-component-update', '--disable-sync'],
});
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
  await page.screenshot({ path: join(screenshots, 'approval.png') });
  await approval.getByRole('button', { name: 'Approve' }).click();
  await approval.locator('.approval-outcome', { hasText: 'Approved' }).waitFor({ timeout: TIMEOUT });
  await page.locator('.message', { hasText: 'Saved the note' }).waitFor({ timeout: TIMEOUT });
  step('a note is approved from its request: Approved, then the scribe says where it saved it');

  if (problems.length) throw new Error(problems.join('\n'));
  console.log(`OK, screenshots in ${screenshots}`);
} catch (e) {
  console.error(`FAILED: ${e.message}`);
  if (page) await page.screenshot({ path: join(screenshots, 'failure.png') }).catch(() => {});
  process.exitCode = 1;
} finally {
  await browser.close();
}
