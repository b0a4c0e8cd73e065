/**
 * The Lambda bundles' `jsonata` (an esbuild alias: `LAMBDA_BUNDLE_ALIASES` in
 * infra/constructs/runtime-function.ts): the package itself, evaluated at the first call instead of at import.
 * jsonata-js registers its ~60 built-in functions (parsing each signature) when its module runs, ~10–25 ms of
 * CPU measured on the development machine, and many invocations of the functions that bundle it evaluate no
 * expression (a graph step whose edges have no condition, a human task whose texts have no `{{ }}`, a workflow
 * that is not a graph). The package is a file of its own beside the bundle (`wf-lazy/jsonata`,
 * infra/constructs/lazy-libraries.ts), so a cold start does not even parse it. Local mode, the CLI and the tests
 * import the package itself.
 */
import type jsonataPackage from 'jsonata';

type Jsonata = typeof jsonataPackage;

let loaded: Jsonata | undefined;

/** `jsonata(expression, options)`, loading the package on the first call. */
const jsonata = ((...args: Parameters<Jsonata>) => {
  // Left external by esbuild; Node finds it in the function's node_modules (lazy-libraries.ts).
  loaded ??= require('wf-lazy/jsonata') as Jsonata;
  return loaded(...args);
}) as Jsonata;

export default jsonata;
