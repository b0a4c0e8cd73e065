/**
 * `node tools/zod-mini-codemod.ts [files...]` — rewrites runtime code from classic zod (`import * as z from
 * 'zod'`) to zod/mini's functional form, through `shared/zod.ts` (zod/mini with the English messages).
 *
 * Which calls to rewrite is decided by the type checker, not by names: a call is rewritten when the method it
 * calls is declared by classic zod (node_modules/zod/v4/classic), and its receiver's kind (string, number,
 * array, object) picks the mini check (`.min` → `z.minLength` on a string or an array, `z.gte` on a number).
 * Consecutive checks on one schema become one `.check(...)`. Types `z.ZodX` become `z.ZodMiniX`;
 * `z.ZodError` and `z.RefinementCtx` become core's `$ZodError` and `$RefinementCtx`.
 *
 * Re-runnable: a file already on `shared/zod.ts` has no classic receivers left and is untouched, so it can
 * be run again after merging code written against classic zod. With no arguments it rewrites every file of
 * shared/ and functions/ (a file that calls an imported schema's methods without importing zod gets the
 * import). Anything it cannot rewrite is printed (file:line and the code) and left as it was, for a hand fix;
 * `npm run typecheck` then finds it. Format afterwards with `npx biome check --write <files>`. Tests may be
 * passed by name (their classic schemas then move to mini too).
 */
import { readdirSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';

const ROOT = resolve(import.meta.dirname, '..');
const ZOD_MODULE = join(ROOT, 'shared/zod.ts');
const RUNTIME_DIRS = ['shared', 'functions'];

/** What a chain built so far is: a schema expression and the checks still to attach to it. */
type Built = { base: string; checks: string[] };

/** Methods that add a check: `x.m(args)` → `x.check(z.f(args))`, with the namespace written as `\u0001`. */
const CHECK_METHODS: Record<string, (kind: Kind, args: string[]) => string> = {
  min: (kind, a) => `\u0001${kind === 'number' ? 'gte' : 'minLength'}(${a.join(', ')})`,
  max: (kind, a) => `\u0001${kind === 'number' ? 'lte' : 'maxLength'}(${a.join(', ')})`,
  gte: (_, a) => `\u0001gte(${a.join(', ')})`,
  lte: (_, a) => `\u0001lte(${a.join(', ')})`,
  gt: (_, a) => `\u0001gt(${a.join(', ')})`,
  lt: (_, a) => `\u0001lt(${a.join(', ')})`,
  length: (_, a) => `\u0001length(${a.join(', ')})`,
  nonempty: (_, a) => `\u0001minLength(${['1', ...a].join(', ')})`,
  int: (_, a) => `\u0001int(${a.join(', ')})`,
  positive: (_, a) => `\u0001positive(${a.join(', ')})`,
  nonnegative: (_, a) => `\u0001nonnegative(${a.join(', ')})`,
  negative: (_, a) => `\u0001negative(${a.join(', ')})`,
  nonpositive: (_, a) => `\u0001nonpositive(${a.join(', ')})`,
  multipleOf: (_, a) => `\u0001multipleOf(${a.join(', ')})`,
  regex: (_, a) => `\u0001regex(${a.join(', ')})`,
  includes: (_, a) => `\u0001includes(${a.join(', ')})`,
  startsWith: (_, a) => `\u0001startsWith(${a.join(', ')})`,
  endsWith: (_, a) => `\u0001endsWith(${a.join(', ')})`,
  lowercase: (_, a) => `\u0001lowercase(${a.join(', ')})`,
  uppercase: (_, a) => `\u0001uppercase(${a.join(', ')})`,
  trim: () => '\u0001trim()',
  toLowerCase: () => '\u0001toLowerCase()',
  toUpperCase: () => '\u0001toUpperCase()',
  url: (_, a) => `\u0001url(${a.join(', ')})`,
  email: (_, a) => `\u0001email(${a.join(', ')})`,
  uuid: (_, a) => `\u0001uuid(${a.join(', ')})`,
  datetime: (_, a) => `\u0001iso.datetime(${a.join(', ')})`,
  date: (_, a) => `\u0001iso.date(${a.join(', ')})`,
  refine: (_, a) => `\u0001refine(${a.join(', ')})`,
  superRefine: (_, a) => `\u0001superRefine(${a.join(', ')})`,
  overwrite: (_, a) => `\u0001overwrite(${a.join(', ')})`,
  describe: (_, a) => `\u0001describe(${a.join(', ')})`,
  meta: (_, a) => `\u0001meta(${a.join(', ')})`,
  check: (_, a) => a.join(', '),
};

/** Methods that wrap the schema: `x.m(args)` → `z.f(x, args)`. */
const WRAP_METHODS: Record<string, string> = {
  optional: 'optional',
  nullable: 'nullable',
  nullish: 'nullish',
  default: '_default',
  prefault: 'prefault',
  catch: 'catch',
  array: 'array',
  pipe: 'pipe',
  readonly: 'readonly',
  extend: 'extend',
  safeExtend: 'safeExtend',
  pick: 'pick',
  omit: 'omit',
  partial: 'partial',
  required: 'required',
  catchall: 'catchall',
  keyof: 'keyof',
  nonoptional: 'nonoptional',
};

/** Methods mini schemas have too. */
const KEPT_METHODS = new Set([
  'parse',
  'safeParse',
  'parseAsync',
  'safeParseAsync',
  'register',
  'clone',
  'brand',
]);

type Kind = 'string' | 'number' | 'array' | 'object' | 'other';

/** The receiver's kind, from the classic interface that declares the method. */
function kindOf(declaration: ts.Declaration): Kind {
  let node: ts.Node | undefined = declaration;
  while (node && !ts.isInterfaceDeclaration(node) && !ts.isClassDeclaration(node)) node = node.parent;
  const name = node && (node as ts.InterfaceDeclaration).name.text;
  if (!name) return 'other';
  if (/String/.test(name)) return 'string';
  if (/Number|Int|Float/.test(name)) return 'number';
  if (/Array|Set/.test(name)) return 'array';
  if (/Object/.test(name)) return 'object';
  return 'other';
}

const isClassicDeclaration = (declaration: ts.Declaration) =>
  /node_modules\/zod\/(v4\/classic|v4\/index|index)/.test(declaration.getSourceFile().fileName);

function zodPath(sf: ts.SourceFile): string {
  const path = relative(dirname(sf.fileName), ZOD_MODULE);
  return path.startsWith('.') ? path : `./${path}`;
}

function runtimeFiles(): string[] {
  const files: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith('.ts')) files.push(path);
    }
  };
  for (const dir of RUNTIME_DIRS) walk(join(ROOT, dir));
  return files;
}

const targets = (
  process.argv.length > 2 ? process.argv.slice(2).map((f) => resolve(f)) : runtimeFiles()
).filter((f) => f !== ZOD_MODULE);
const config = ts.getParsedCommandLineOfConfigFile(
  join(ROOT, 'tsconfig.json'),
  {},
  {
    ...ts.sys,
    onUnRecoverableConfigFileDiagnostic: (d) => {
      throw new Error(ts.flattenDiagnosticMessageText(d.messageText, '\n'));
    },
  },
);
if (!config) throw new Error('tsconfig.json did not parse');
const program = ts.createProgram({ rootNames: targets, options: config.options });
const checker = program.getTypeChecker();
const unhandled: string[] = [];
let changed = 0;

for (const file of targets) {
  const sf = program.getSourceFile(file);
  if (!sf) throw new Error(`not in the program: ${file}`);
  const output = rewriteFile(sf);
  if (output !== sf.text) {
    writeFileSync(file, output);
    changed += 1;
  }
}
console.log(`zod-mini-codemod: ${changed} of ${targets.length} files rewritten`);
if (unhandled.length > 0) {
  console.log(`left for a hand fix (${unhandled.length}):`);
  for (const line of unhandled) console.log(`  ${line}`);
}

function rewriteFile(sf: ts.SourceFile): string {
  const text = sf.text;
  // The namespace's local name (`z`, or `zod` in a file where z is taken).
  let ns: string | undefined;
  for (const statement of sf.statements) {
    if (
      ts.isImportDeclaration(statement) &&
      ts.isStringLiteral(statement.moduleSpecifier) &&
      statement.moduleSpecifier.text === 'zod' &&
      statement.importClause?.namedBindings &&
      ts.isNamespaceImport(statement.importClause.namedBindings)
    ) {
      ns = statement.importClause.namedBindings.name.text;
    }
  }
  // A file without zod may still call a schema's methods (an imported schema's .pick()): it gets the import.
  const imported = ns !== undefined;
  if (text.includes('\u0001')) throw new Error(`${sf.fileName} holds U+0001, the codemod's placeholder`);
  const zns = ns ?? 'z';
  const where = (node: ts.Node) =>
    `${relative(ROOT, sf.fileName)}:${sf.getLineAndCharacterOfPosition(node.getStart(sf)).line + 1}`;

  const render = (b: Built) => (b.checks.length > 0 ? `${b.base}.check(${b.checks.join(', ')})` : b.base);

  /** Comments in [from, to) outside the given kept ranges, so a rewrite does not drop them. */
  const commentsBetween = (from: number, to: number): string => {
    const found: string[] = [];
    const scanner = ts.createScanner(
      ts.ScriptTarget.Latest,
      false,
      ts.LanguageVariant.Standard,
      text,
      undefined,
      from,
      to - from,
    );
    for (let kind = scanner.scan(); kind !== ts.SyntaxKind.EndOfFileToken; kind = scanner.scan()) {
      if (kind === ts.SyntaxKind.SingleLineCommentTrivia) found.push(`${scanner.getTokenText()}\n`);
      else if (kind === ts.SyntaxKind.MultiLineCommentTrivia) found.push(`${scanner.getTokenText()} `);
    }
    return found.join('');
  };

  function classicMethod(call: ts.CallExpression): { name: string; kind: Kind } | undefined {
    if (!ts.isPropertyAccessExpression(call.expression)) return undefined;
    const symbol = checker.getSymbolAtLocation(call.expression.name);
    const declaration = symbol?.declarations?.[0];
    // A schema's method (declared in an interface), not a function of the namespace (z.string()).
    if (!declaration || !isClassicDeclaration(declaration)) return undefined;
    if (!ts.isMethodSignature(declaration) && !ts.isPropertySignature(declaration)) return undefined;
    return { name: call.expression.name.text, kind: kindOf(declaration) };
  }

  function build(node: ts.Node): Built {
    if (ts.isCallExpression(node) && ts.isPropertyAccessExpression(node.expression)) {
      const method = classicMethod(node);
      if (method && !KEPT_METHODS.has(method.name)) {
        const receiver = node.expression.expression;
        const inner = build(receiver);
        // An argument keeps its leading comments (a `/* @__PURE__ */` annotation lets esbuild drop the call).
        const args = node.arguments.map((a) => commentsBetween(a.pos, a.getStart(sf)) + emit(a));
        const lost =
          commentsBetween(receiver.end, node.arguments[0]?.pos ?? node.end) +
          commentsBetween(node.arguments.at(-1)?.end ?? node.end, node.end);
        const rewritten = rewriteMethod(method, inner, args);
        if (rewritten) return lost ? { base: `${lost}${render(rewritten)}`, checks: [] } : rewritten;
        unhandled.push(`${where(node)} .${method.name}(): ${node.getText(sf).split('\n')[0]}`);
        return { base: `${render(inner)}.${method.name}(${args.join(', ')})`, checks: [] };
      }
    }
    return { base: spliced(node), checks: [] };
  }

  function rewriteMethod(
    method: { name: string; kind: Kind },
    inner: Built,
    args: string[],
  ): Built | undefined {
    const { name, kind } = method;
    const check = CHECK_METHODS[name];
    if (check) return { base: inner.base, checks: [...inner.checks, pure() + check(kind, args)] };
    const wrap = WRAP_METHODS[name];
    if (wrap) return { base: `${pure()}\u0001${wrap}(${[render(inner), ...args].join(', ')})`, checks: [] };
    if (name === 'transform')
      return { base: `\u0001pipe(${render(inner)}, \u0001transform(${args.join(', ')}))`, checks: [] };
    if (name === 'merge') return { base: `\u0001extend(${render(inner)}, ${args[0]}.shape)`, checks: [] };
    if (name === 'or') return { base: `\u0001union([${render(inner)}, ${args[0]}])`, checks: [] };
    if (name === 'and') return { base: `\u0001intersection(${render(inner)}, ${args[0]})`, checks: [] };
    if (name === 'strict' || name === 'passthrough' || name === 'loose') {
      const object = /^\w+\s*\.object\(/.exec(inner.base);
      const into = name === 'strict' ? 'strictObject' : 'looseObject';
      if (object && inner.checks.length === 0)
        return { base: inner.base.replace(/^\w+\s*\.object\(/, `\u0001${into}(`), checks: [] };
      const catchall = name === 'strict' ? '\u0001never()' : '\u0001unknown()';
      return { base: `\u0001catchall(${render(inner)}, ${catchall})`, checks: [] };
    }
    return undefined;
  }

  /** The node's text (from its start, without leading trivia) with each child rewritten. */
  function spliced(node: ts.Node): string {
    const children = node.getChildren(sf);
    if (children.length === 0) return node.getText(sf);
    let out = '';
    let cursor = node.getStart(sf);
    for (const child of children) {
      if (child.end <= cursor || ts.isJSDoc(child)) continue;
      const start = child.getStart(sf);
      out += text.slice(cursor, start) + emit(child);
      cursor = child.end;
    }
    return out + text.slice(cursor, node.end);
  }

  /**
   * Inside a call annotated `/* @__PURE__ *\/`, the zod calls written for it are annotated too: its arguments
   * are evaluated even when esbuild drops the call, and esbuild does not apply zod's own `@__NO_SIDE_EFFECTS__`
   * to a call through the namespace (`z.superRefine(...)`), so an unused schema would stay in the bundle.
   */
  let pureDepth = 0;
  const pure = () => (pureDepth > 0 ? '/* @__PURE__ */ ' : '');

  function emit(node: ts.Node): string {
    if (text.slice(node.pos, node.getStart(sf)).includes('@__PURE__')) {
      pureDepth += 1;
      try {
        return emitNode(node);
      } finally {
        pureDepth -= 1;
      }
    }
    return emitNode(node);
  }

  function emitNode(node: ts.Node): string {
    // `z.ZodType<X>` in a type, `z.ZodError` as a value: the mini and core names.
    if (
      (ts.isQualifiedName(node) || ts.isPropertyAccessExpression(node)) &&
      node.getText(sf).startsWith(`${zns}.`)
    ) {
      const right = ts.isQualifiedName(node) ? node.right.text : node.name.text;
      const left = ts.isQualifiedName(node) ? node.left : node.expression;
      if (ts.isIdentifier(left) && left.text === zns) {
        if (right === 'ZodError' || right === 'ZodIssue') return `${zns}.core.$${right}`;
        if (right === 'RefinementCtx') return `${zns}.core.$RefinementCtx`;
        if (/^Zod[A-Z]/.test(right) && !right.startsWith('ZodMini')) return `${zns}.ZodMini${right.slice(3)}`;
      }
    }
    if (
      ts.isImportDeclaration(node) &&
      ts.isStringLiteral(node.moduleSpecifier) &&
      node.moduleSpecifier.text === 'zod'
    ) {
      return node.getText(sf).replace(/'zod'/, `'${zodPath(sf)}'`);
    }
    return render(build(node));
  }

  const rewritten = text.slice(0, sf.getStart(sf)) + spliced(sf);
  if (rewritten === text) return text;
  // Every `\u0001` is a template's (the file had none): the namespace's name.
  const output = rewritten.replaceAll('\u0001', `${zns}.`);
  if (imported) return output;
  const firstImport = sf.statements.find(ts.isImportDeclaration);
  const at = firstImport ? firstImport.getStart(sf) : sf.getStart(sf);
  return `${output.slice(0, at)}import * as z from '${zodPath(sf)}';\n${output.slice(at)}`;
}
