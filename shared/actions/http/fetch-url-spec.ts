/**
 * What `fetch_url` tells the model (its input schema and description), apart from what it does (fetch-url.ts):
 * describing it needs no HTML parser, so a run's creator can price turn 0's tools (runs/first-turn.ts).
 */
import * as z from '../../zod.ts';
import { HttpUrlInput } from './url.ts';

/** Input of `fetch_url`. */
export const FetchUrlInput = z.strictObject({
  url: HttpUrlInput.check(z.describe('Absolute http(s) URL of the page.')),
});

/** The description of `fetch_url` with a text cap of `maxChars`. */
export const fetchUrlDescription = (maxChars: number): string =>
  'Read a web page or text document (GET). HTML comes back as readable text with headings, paragraphs, ' +
  `list items and links; at most ${maxChars} characters. Binary files are not supported.`;
