/**
 * One page of a graph run's steps, bounded in bytes as the API's Lambda returns it. A synchronous Lambda
 * response is at most 6 MB (https://docs.aws.amazon.com/lambda/latest/dg/gettingstarted-limits.html), and a
 * run of 100 steps with outputs up to 64 KiB each, plus their inputs, can pass that. Sizes are counted as the
 * response carries them (response-bytes.ts). A page holds whole steps while they fit in `STEP_PAGE_BYTES`,
 * and always its first step: one step is one DynamoDB item (at most 400 KB stored), which escaped twice
 * (at most 7 bytes a character) stays under 6 MB.
 */
import type { GraphStep } from '../schemas/graph-step.ts';
import { encodedBytes } from './response-bytes.ts';
import { TRANSCRIPT_PAGE_BYTES } from './transcript-page.ts';

/** What one page of a listing may cost, escaped as sent: as a transcript page, room for the console's escaping. */
export const LISTING_PAGE_BYTES = TRANSCRIPT_PAGE_BYTES;
export const STEP_PAGE_BYTES = LISTING_PAGE_BYTES;

export type StepPage<S> = { steps: S[]; more: boolean };

/**
 * The first of `items` (shown as sent) whose cost as sent fits `bytes`, at least one: how many of them a
 * page holds. Any listing whose items can be large pages this way (steps here, human tasks).
 */
export function fittingCount(items: readonly unknown[], bytes: number): number {
  let used = 0;
  for (const [index, item] of items.entries()) {
    // Each item after the first also costs its comma in the array.
    used += encodedBytes(item) + (index > 0 ? 1 : 0);
    if (index > 0 && used > bytes) return index;
  }
  return items.length;
}

/**
 * The steps of the page out of `steps` (read in order, `more`: the run has steps after them), as `show`
 * presents them: whole steps while their cost fits `bytes`, at least one.
 */
export function stepPage<S>(
  steps: readonly GraphStep[],
  more: boolean,
  show: (step: GraphStep) => S,
  bytes = STEP_PAGE_BYTES,
): StepPage<S> {
  const shown = steps.map(show);
  const count = fittingCount(shown, bytes);
  return { steps: shown.slice(0, count), more: more || count < shown.length };
}
