/**
 * The Lambda bundles' `re2js` (an esbuild alias: `LAMBDA_BUNDLE_ALIASES` in
 * infra/constructs/runtime-function.ts): the package itself, evaluated on the first use of `RE2JS` instead of
 * at import. Its ~150 KB were parsed in full and run at every cold start of the four functions that bundle it,
 * ~20 ms of CPU measured on the development machine, although only an owner's pattern needs it (a JSONata
 * regex literal, a JSON Schema `pattern` over a model's output or a form submission: shared/regex/linear.ts).
 * The package is a file of its own beside the bundle (`wf-lazy/re2js`, infra/constructs/lazy-libraries.ts), so
 * a cold start does not even parse it. Local mode, the CLI and the tests import the package itself.
 */
import type { RE2JS as RE2JSClass } from 're2js';

type RE2JSStatics = typeof RE2JSClass;

let loaded: RE2JSStatics | undefined;
// Left external by esbuild; Node finds it in the function's node_modules (lazy-libraries.ts).
const load = (): RE2JSStatics => {
  loaded ??= (require('wf-lazy/re2js') as { RE2JS: RE2JSStatics }).RE2JS;
  return loaded;
};

/** `RE2JS`'s statics (`compile`, `translateRegExp`, …), read from the package on first use. */
export const RE2JS: RE2JSStatics = new Proxy({} as RE2JSStatics, {
  get(_target, key) {
    const statics = load();
    const value: unknown = Reflect.get(statics, key);
    return typeof value === 'function' ? value.bind(statics) : value;
  },
});
