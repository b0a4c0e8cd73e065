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
 * shared/ and functions/ that imports 'zod'. Anything it cannot rewrite is printed (file:line and the code)
 * and left as it was, for a hand fix; `npm run typecheck` then finds it. Format afterwards with
 * `npx biome check --write <files>`.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';

const ROOT = resolve(import.meta.dirname, '..');
const ZOD_MODULE = join(ROOT, 'shared/zod.ts');
const RUNTIME_DIRS = ['shared', 'functions'];

/** What a chain built so far is: a schema expression and the checks still to attach to it. */
type Built = { base: string; checks: string[] };

/** Methods that add a check: `x.m(args)` → `x.check(z.f(args))`, with the namespace written as `Z_`. */
const CHECK_METHODS: Record<string, (kind: Kind, args: string[]) => string> = {
  min: (kind, a) => `Z_${kind === 'number' ? 'gte' : 'minLength'}(${a.join(', ')})`,
  max: (kind, a) => `Z_${kind === 'number' ? 'lte' : 'maxLength'}(${a.join(', ')})`,
  gte: (_, a) => `Z_gte(${a.join(', ')})`,
  lte: (_, a) => `Z_lte(${a.join(', ')})`,
  gt: (_, a) => `Z_gt(${a.join(', ')})`,
  lt: (_, a) => `Z_lt(${a.join(', ')})`,
  length: (_, a) => `Z_length(${a.join(', ')})`,
  nonempty: (_, a) => `Z_minLength(${['1', ...a].join(', ')})`,
  int: (_, a) => `Z_int(${a.join(', ')})`,
  positive: (_, a) => `Z_positive(${a.join(', ')})`,
  nonnegative: (_, a) => `Z_nonnegative(${a.join(', ')})`,
  negative: (_, a) => `Z_negative(${a.join(', ')})`,
  nonpositive: (_, a) => `Z_nonpositive(${a.join(', ')})`,
  multipleOf: (_, a) => `Z_multipleOf(${a.join(', ')})`,
  regex: (_, a) => `Z_regex(${a.join(', ')})`,
  includes: (_, a) => `Z_includes(${a.join(', ')})`,
  startsWith: (_, a) => `Z_startsWith(${a.join(', ')})`,
  endsWith: (_, a) => `Z_endsWith(${a.join(', ')})`,
  lowercase: (_, a) => `Z_lowercase(${a.join(', ')})`,
  uppercase: (_, a) => `Z_uppercase(${a.join(', ')})`,
  trim: () => 'Z_trim()',
  toLowerCase: () => 'Z_toLowerCase()',
  toUpperCase: () => 'Z_toUpperCase()',
  url: (_, a) => `Z_url(${a.join(', ')})`,
  email: (_, a) => `Z_email(${a.join(', ')})`,
  uuid: (_, a) => `Z_uuid(${a.join(', ')})`,
  datetime: (_, a) => `Z_iso.datetime(${a.join(', ')})`,
  date: (_, a) => `Z_iso.date(${a.join(', ')})`,
  refine: (_, a) => `Z_refine(${a.join(', ')})`,
  superRefine: (_, a) => `Z_superRefine(${a.join(', ')})`,
  overwrite: (_, a) => `Z_overwrite(${a.join(', ')})`,
  describe: (_, a) => `Z_describe(${a.join(', ')})`,
  meta: (_, a) => `Z_meta(${a.join(', ')})`,
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

function runtimeFiles(): string[] {
  const files: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith('.ts') && /from 'zod'/.test(readFileSync(path, 'utf8'))) files.push(path);
    }
  };
  for (const dir of RUNTIME_DIRS) walk(join(ROOT, dir));
  return files;
}

const targets = (process.argv.length > 2 ? process.argv.slice(2).map((f) => resolve(f)) : runtimeFiles()).filter(
  (f) => f !== ZOD_MODULE,
);
const config = ts.getParsedCommandLineOfConfigFile(join(ROOT, 'tsconfig.json'), {}, {
  ...ts.sys,
  onUnRecoverableConfigFileDiagnostic: (d) => {
    throw new Error(ts.flattenDiagnosticMessageText(d.messageText, '\n'));
  },
});
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
  if (!ns) return text;
  if (text.includes('Z_')) throw new Error(`${sf.fileName} holds Z_, the codemod's placeholder`);
  const zns = ns;
  const where = (node: ts.Node) =>
    `${relative(ROOT, sf.fileName)}:${sf.getLineAndCharacterOfPosition(node.getStart(sf)).line + 1}`;

  const render = (b: Built) => (b.checks.length > 0 ? `${b.base}.check(${b.checks.join(', ')})` : b.base);

  /** Comments in [from, to) outside the given kept ranges, so a rewrite does not drop them. */
  const commentsBetween = (from: number, to: number): string => {
    const found: string[] = [];
    const scanner = ts.createScanner(ts.ScriptTarget.Latest, false, ts.LanguageVariant.Standard, text, undefined, from, to - from);
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
    if (!declaration || !isClassicDeclaration(declaration)) return undefined;
    return { name: call.expression.name.text, kind: kindOf(declaration) };
  }

  function build(node: ts.Node): Built {
    if (ts.isCallExpression(node) && ts.isPropertyAccessExpression(node.expression)) {
      const method = classicMethod(node);
      if (method && !['parse', 'safeParse', 'parseAsync', 'safeParseAsync', 'register', 'clone'].includes(method.name)) {
        const receiver = node.expression.expression;
        const inner = build(receiver);
        const args = node.arguments.map((a) => emit(a));
        const lost =
          commentsBetween(receiver.end, node.arguments[0]?.getStart(sf) ?? node.end) +
          commentsBetween(node.arguments.at(-1)?.end ?? node.end, node.end);
        const rewritten = rewriteMethod(method, inner, args, node);
        if (rewritten) return lost ? { base: `${lost}${render(rewritten)}`, checks: [] } : rewritten;
        unhandled.push(`${where(node)} .${method.name}(): ${node.getText(sf).split('\n')[0]}`);
      }
    }
    return { base: spliced(node), checks: [] };
  }

  function rewriteMethod(method: { name: string; kind: Kind }, inner: Built, args: string[], node: ts.Node): Built | undefined {
    const { name, kind } = method;
    const check = CHECK_METHODS[name];
    if (check) return { base: inner.base, checks: [...inner.checks, check(kind, args)] };
    const wrap = WRAP_METHODS[name];
    if (wrap) return { base: `Z_${wrap}(${[render(inner), ...args].join(', ')})`, checks: [] };
    if (name === 'transform') return { base: `Z_pipe(${render(inner)}, Z_transform(${args.join(', ')}))`, checks: [] };
    if (name === 'merge') return { base: `Z_extend(${render(inner)}, ${args[0]}.shape)`, checks: [] };
    if (name === 'or') return { base: `Z_union([${render(inner)}, ${args[0]}])`, checks: [] };
    if (name === 'and') return { base: `Z_intersection(${render(inner)}, ${args[0]})`, checks: [] };
    if (name === 'strict' || name === 'passthrough' || name === 'loose') {
      const object = /^(\w+)\.object\(/.exec(inner.base);
      const into = name === 'strict' ? 'strictObject' : 'looseObject';
      if (object && inner.checks.length === 0) return { base: inner.base.replace(/^\w+\.object\(/, `Z_${into}(`), checks: [] };
      const catchall = name === 'strict' ? 'Z_never()' : 'Z_unknown()';
      return { base: `Z_catchall(${render(inner)}, ${catchall})`, checks: [] };
    }
    void node;
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

  function emit(node: ts.Node): string {
    // `z.ZodType<X>` in a type, `z.ZodError` as a value: the mini and core names.
    if ((ts.isQualifiedName(node) || ts.isPropertyAccessExpression(node)) && node.getText(sf).startsWith(`${zns}.`)) {
      const right = ts.isQualifiedName(node) ? node.right.text : node.name.text;
      const left = ts.isQualifiedName(node) ? node.left : node.expression;
      if (ts.isIdentifier(left) && left.text === zns) {
        if (right === 'ZodError' || right === 'ZodIssue') return `${zns}.core.$${right}`;
        if (right === 'RefinementCtx') return `${zns}.core.$RefinementCtx`;
        if (/^Zod[A-Z]/.test(right) && !right.startsWith('ZodMini')) return `${zns}.ZodMini${right.slice(3)}`;
      }
    }
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier) && node.moduleSpecifier.text === 'zod') {
      let path = relative(dirname(sf.fileName), ZOD_MODULE);
      if (!path.startsWith('.')) path = `./${path}`;
      return node.getText(sf).replace(/'zod'/, `'${path}'`);
    }
    return render(build(node));
  }

  // Every `Z_` is a template's (the file had none): the namespace's name.
  return (text.slice(0, sf.getStart(sf)) + spliced(sf)).replaceAll('Z_', `${zns}.`);
}
