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
