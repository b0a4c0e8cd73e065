/**
 * What every browser test shares: Debian's Chromium (no browser is downloaded), the flags it runs with, the
 * precondition that it is installed, and launching it while the test's stack starts.
 */
import { existsSync } from 'node:fs';

export const CHROMIUM = '/usr/bin/chromium';

/**
 * Headless, no sandbox (the tests run as root in CI), and nothing that talks to the internet on its own
 * (background networking, component updates, sync, QUIC): the tests send traffic only to loopback.
 */
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-quic',
];

/** A missing browser is a failed precondition, never a skip; on CI it says what to install. */
export function requireChromium(): void {
  if (existsSync(CHROMIUM)) return;
  const hint = "install Debian's chromium: apt-get install chromium";
  throw new Error(
    process.env.CI === 'true'
      ? `CI: the browser test needs ${CHROMIUM}, which is missing: ${hint}`
      : `precondition failed: ${CHROMIUM} is missing (${hint}); no browser is downloaded`,
  );
}

/**
 * Browser tests launch Chromium while their stack starts (both mostly wait on their own processes). A start that
 * fails closes the browser launched beside it before it rethrows, so no Chromium outlives the file.
 */
export async function startWhileLaunching<Started>(
  launching: Promise<{ close(): Promise<void> }>,
  starting: Promise<Started>,
): Promise<Started> {
  try {
    return await starting;
  } catch (error) {
    await launching.then((launched) => launched.close()).catch(() => undefined);
    throw error;
  }
}
