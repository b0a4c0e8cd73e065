/**
 * zod/mini with zod's English messages: every runtime schema imports zod from here
 * (`import * as z from '../zod.ts'`), never classic `'zod'` (docs/deploy.md, "Function bundles").
 *
 * zod/mini sets no locale, so without this every issue's message would be "Invalid input"; classic zod
 * sets English when its first schema is built. package.json lists this file in `sideEffects`, so esbuild
 * keeps the `config` call although the rest of the file is re-exports (with `"sideEffects": false` a
 * bundler drops a module none of whose own bindings is used).
 */
import * as z from 'zod/mini';
import en from 'zod/v4/locales/en.js';

z.config(en());

export * from 'zod/mini';
