/**
 * The Lambda bundles' `htmlparser2` (an esbuild alias: `LAMBDA_BUNDLE_ALIASES` in
 * infra/constructs/runtime-function.ts): its `Parser`, evaluated at the first `new Parser(…)` instead of being
 * parsed at import. `fetch_url` already loads the HTML reader (shared/actions/http/html-text.ts) with the first
 * HTML body, but esbuild inlines a dynamic `import()` into `index.js`, so the parser and its entity tables
 * (~50 KB) were still pre-parsed at every cold start of the functions that bundle `fetch_url`. The package is a
 * file of its own beside the bundle (`wf-lazy/htmlparser2`, infra/constructs/lazy-libraries.ts). Local mode,
 * the CLI and the tests import the package itself.
 */
import type { Parser as ParserClass } from 'htmlparser2';

type ParserConstructor = typeof ParserClass;

let loaded: ParserConstructor | undefined;

/**
 * `new Parser(handlers, options)`: a constructor that returns the package's instance (so `instanceof` this
 * export is false; html-text.ts never asks).
 */
export const Parser = function Parser(...args: ConstructorParameters<ParserConstructor>) {
  // Left external by esbuild; Node finds it in the function's node_modules (lazy-libraries.ts).
  loaded ??= (require('wf-lazy/htmlparser2') as { Parser: ParserConstructor }).Parser;
  return new loaded(...args);
} as unknown as ParserConstructor;
