/**
 * `fetch_url{url}`: GET a page through the egress guard and return readable text. HTML is reduced to
 * text (html-text.ts), other text types pass through, binary bodies are refused; the text is capped
 * (default 20,000 characters, said in the result when cut). Idempotent: a GET may be repeated.
 */

import type { Action } from '../../core/actions.ts';
import type { WorkflowDefinition } from '../../schemas/workflow.ts';
import type * as z from '../../zod.ts';
import { credentialProblem } from '../credential-check.ts';
import { egressFailure, failed, succeeded } from '../outcome.ts';
import { FetchUrlInput, fetchUrlSpec } from './fetch-url-spec.ts';
import { bodyKind, capText, DEFAULT_MAX_TEXT_CHARS, mediaTypeOf } from './response-text.ts';

export { FetchUrlInput };

/** Characters of an error page's text shown with an HTTP error. */
const ERROR_PAGE_CHARS = 1_000;

const ACCEPT =
  'text/html,application/xhtml+xml,text/plain;q=0.9,application/json;q=0.8,text/*;q=0.7,*/*;q=0.1';

/**
 * The HTML parser (htmlparser2 and its entity tables), loaded with the first HTML body: a function that
 * bundles fetch_url (Turn, GraphService) no longer builds the entity decoding tables and compiles the parser
 * on every cold start, only when a run fetches a page. In a bundle esbuild turns this import into a lazily
 * initialized module of the same file, so nothing is read from disk.
 */
const htmlText = () => import('./html-text.ts');

/** Options of `fetch_url`: text cap (default 20,000) and User-Agent. */
export type FetchUrlOptions = { maxTextChars?: number; userAgent?: string };

/** The fetch_url action for one workflow (its credRefs are what the credential check looks for). */
export function fetchUrlAction(definition: WorkflowDefinition, options: FetchUrlOptions = {}): Action {
  const maxChars = options.maxTextChars ?? DEFAULT_MAX_TEXT_CHARS;
  return {
    ...fetchUrlSpec({ maxTextChars: maxChars }),
    async run(raw, ctx) {
      const { url } = raw as z.output<typeof FetchUrlInput>;
      const problem = await credentialProblem(ctx, definition, [url]);
      if (problem) return failed(`Refused: ${problem}. Nothing was sent.`);
      let response: Awaited<ReturnType<typeof ctx.egress.request>>;
      try {
        response = await ctx.egress.request({
          method: 'GET',
          url,
          headers: { accept: ACCEPT, ...(options.userAgent ? { 'user-agent': options.userAgent } : {}) },
        });
      } catch (error) {
        return egressFailure(error);
      }
      const contentType = response.headers['content-type'];
      const kind = bodyKind(contentType, response.body);
      const type = mediaTypeOf(contentType) || 'no content-type';
      if (kind === 'binary') {
        return failed(
          `fetch_url reads text only: ${response.url || url} is ${type} (binary), which is not shown.`,
        );
      }
      const page =
        kind === 'html'
          ? (await htmlText()).htmlToText(response.body, response.url || url)
          : { title: undefined, text: response.body };
      const head = [
        `${response.url || url}`,
        `HTTP ${response.status}, ${type}`,
        ...(page.title ? [`Title: ${page.title}`] : []),
      ].join('\n');
      if (response.status >= 400) return failed(`${head}\n\n${capText(page.text, ERROR_PAGE_CHARS)}`);
      return succeeded(`${head}\n\n${capText(page.text, maxChars)}`);
    },
  };
}
