/**
 * The Lambda bundles' `jsonata` (an esbuild alias: `LAMBDA_BUNDLE_ALIASES` in
 * infra/constructs/runtime-function.ts): the package itself, evaluated at the first call instead of at import.
 * jsonata-js registers its ~60 built-in functions (parsing each signature) when its module runs, ~10–25 ms of
 * CPU measured on the development machine, and many invocations of the functions that bundle it evaluate no
 * expression (a graph step whose edges have no condition, a human task whose texts have no `{{ }}`, a workflow
 * that is not a graph). The package stays in the bundle (esbuild's lazily initialized CommonJS wrapper), so the
 * first call reads nothing from disk. Local mode, the CLI and the tests import the package itself.
 */
import type jsonataPackage from 'jsonata';

type Jsonata = typeof jsonataPackage;

let loaded: Jsonata | undefined;

/** `jsonata(expression, options)`, loading the package on the first call. */
const jsonata = ((...args: Parameters<Jsonata>) => {
  // The package's file by path: the alias maps `jsonata` itself here. Only esbuild resolves this `require`.
  loaded ??= require('jsonata/jsonata.js') as Jsonata;
  return loaded(...args);
}) as Jsonata;

export default jsonata;
