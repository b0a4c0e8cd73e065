/**
 * What `fetch_url` tells the model (its input schema and description), apart from what it does (fetch-url.ts):
 * describing it needs no HTML parser, so a run's creator can price turn 0's tools (runs/first-turn.ts) and the
 * approval pages can show it (actions/spec-catalog.ts) without bundling one.
 */
import type { ActionSpec } from '../../core/actions.ts';
import * as z from '../../zod.ts';
import { DEFAULT_MAX_TEXT_CHARS } from './response-text.ts';
import { HttpUrlInput } from './url.ts';

/** Input of `fetch_url`. */
export const FetchUrlInput = z.strictObject({
  url: HttpUrlInput.check(z.describe('Absolute http(s) URL of the page.')),
});

/** The description of `fetch_url` with a text cap of `maxChars`. */
export const fetchUrlDescription = (maxChars: number): string =>
  'Read a web page or text document (GET). HTML comes back as readable text with headings, paragraphs, ' +
  `list items and links; at most ${maxChars} characters. Binary files are not supported.`;

/** `fetch_url` as described, with a text cap of `maxTextChars` (default 20,000). Idempotent: a GET may be repeated. */
export const fetchUrlSpec = (options: { maxTextChars?: number } = {}): ActionSpec => ({
  name: 'fetch_url',
  description: fetchUrlDescription(options.maxTextChars ?? DEFAULT_MAX_TEXT_CHARS),
  input: FetchUrlInput,
  idempotent: true,
  irreversible: false,
});
