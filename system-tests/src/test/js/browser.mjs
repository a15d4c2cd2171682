// Debian's Chromium for the browser tests, driven by playwright-core (never `npx playwright
// install`: it downloads a browser).

import { mkdirSync } from 'node:fs';
import { chromium } from 'playwright-core';

/**
 * A browser test's command line, `node <script> <orchestrator URL> [screenshot directory] …`: the
 * URL, the directory (made if missing) and the arguments after them.
 */
export function commandLine(script) {
  const [baseUrl, screenshots = 'target/browser', ...more] = process.argv.slice(2);
  if (!baseUrl) {
    console.error(`usage: node ${script} <orchestrator URL> [screenshot directory]`);
    process.exit(2);
  }
  mkdirSync(screenshots, { recursive: true });
  return { baseUrl, screenshots, more };
}

export function launchChromium() {
  return chromium.launch({
    executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
}
