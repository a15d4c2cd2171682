// Cancelling a running plan from its graph, in Debian's Chromium at phone width. The stack's offline
// model takes seconds a call (BrowserUiIT starts such a stack), so "Write a report on Kafka and
// MongoDB" is still running when its graph appears: each researcher needs three calls. Cancel plan
// stops it: the researchers end Cancelled, the writer is Skipped, the plan Cancelled. Exits 0 when
// all that was seen, 1 with the reason otherwise.
//
//   node browser-plan-cancel.mjs <orchestrator URL> <screenshot directory>

import { join } from 'node:path';
import { commandLine, launchChromium } from './browser.mjs';

const { baseUrl, screenshots } = commandLine('browser-plan-cancel.mjs');

const TIMEOUT = 60_000;
const browser = await launchChromium();
let page;
try {
  page = await browser.newPage({ viewport: { width: 390, height: 844 } });
  const problems = [];
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  await page.goto(baseUrl, { waitUntil: 'domcontentloaded' });
  await page.getByRole('heading', { name: 'What should we look into?' }).waitFor({ timeout: TIMEOUT });
  const input = page.getByRole('textbox', { name: 'Message' });
  await input.fill('Write a report on Kafka and MongoDB');
  await input.press('Enter');

  const plan = page.locator('.plan');
  await plan.locator('.plan-node.node-running').first().waitFor({ timeout: TIMEOUT });
  await page.screenshot({ path: join(screenshots, 'plan-running-phone.png') });
  await plan.getByRole('button', { name: 'Cancel plan' }).click({ timeout: TIMEOUT });
  console.log('- the running plan has Cancel plan; clicked');

  await page.locator('.plan[data-status="cancelled"]').waitFor({ timeout: TIMEOUT });
  const cancelled = await plan.locator('.plan-node.node-cancelled', { hasText: 'Cancelled' }).count();
  const skipped = await plan.locator('.plan-node.node-skipped[data-node="write"]', { hasText: 'Skipped' }).count();
  if (cancelled !== 2 || skipped !== 1) {
    throw new Error(`after Cancel plan: ${cancelled} researchers Cancelled (not 2), writer Skipped: ${skipped === 1}`);
  }
  if (await plan.getByRole('button', { name: 'Cancel plan' }).count()) throw new Error('an ended plan still offers Cancel plan');
  await page.screenshot({ path: join(screenshots, 'plan-cancelled-phone.png') });
  console.log('- the plan was cancelled from its graph: researchers Cancelled, writer Skipped, plan Cancelled');

  if (problems.length) throw new Error(problems.join('\n'));
  console.log(`OK, screenshots in ${screenshots}`);
} catch (e) {
  console.error(`FAILED: ${e.message}`);
  if (page) await page.screenshot({ path: join(screenshots, 'plan-cancel-failure.png') }).catch(() => {});
  process.exitCode = 1;
} finally {
  await browser.close();
}
