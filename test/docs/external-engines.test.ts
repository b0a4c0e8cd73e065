/** Every fenced block of docs/external-engines.md, checked against the code it describes. */
import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { EngineNameSchema } from '../../shared/external/definition.ts';
import { FixtureEngine } from '../../shared/external/fixture-engine/index.ts';
import { HttpRuntimeSettingsSchema } from '../../shared/external/http/settings.ts';
import { CONFORMANCE_CHECKS } from '../support/external-conformance.ts';
import { blockWith, declaration, fencedBlocks, shapeOf } from './fenced-blocks.ts';

const PAGE = 'external-engines.md';
const source = (...paths: string[]) =>
  paths.map((path) => readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8')).join('\n');
const declaredNames = (ts: string) =>
  [...ts.matchAll(/^(?:export )?(?:type|interface) (\w+)/gm)].map((m) => m[1] as string);

/** The code names some unions by their const arrays (`WaitReason`): spelled out here as the page does. */
function resolveConstUnions(code: string): string {
  let resolved = code;
  for (const [, alias, array] of code.matchAll(/export type (\w+) = \(typeof (\w+)\)\[number\];/g)) {
    const values = new RegExp(`export const ${array} = \\[(.*)\\] as const;`).exec(code)?.[1];
    if (values !== undefined)
      resolved = resolved.replace(new RegExp(`: ${alias}\\b`, 'g'), `: ${values.replaceAll(', ', ' | ')}`);
  }
  return resolved;
}

/** Each type the block declares has, in the code, the same members and the same string literals. */
function expectSameDeclarations(block: string, code: string, expected: string[]) {
  expect(declaredNames(block)).toEqual(expected);
  for (const name of expected) {
    const documented = declaration(block, name);
    const real = declaration(code, name);
    expect(real, `${name} is declared in the code`).toBeDefined();
    expect(shapeOf(documented ?? ''), name).toEqual(shapeOf(real ?? ''));
  }
}

describe('docs/external-engines.md', () => {
  it('has the five blocks this file checks', () => {
    expect(fencedBlocks(PAGE).map((block) => block.info)).toEqual(['ts', 'ts', 'json', 'ts', 'ts']);
  });

  it('the contract is the one in shared/external/contract.ts', () => {
    expectSameDeclarations(
      blockWith(PAGE, 'interface ExternalAdapter {').body,
      resolveConstUnions(source('shared/external/contract.ts')),
      [
        'ExternalAdapter',
        'StartResult',
        'ExternalExecution',
        'Observation',
        'CancelFacts',
        'ArtifactEntry',
        'VerifiedArtifact',
        'CallbackEvent',
      ],
    );
  });

  it('the registry is the one in shared/external/registry.ts and ports.ts', async () => {
    const block = blockWith(PAGE, 'createEngineRegistry(factories').body;
    const code = source('shared/external/registry.ts', 'shared/external/ports.ts');
    // EnginesConfig is z.input of a schema in the code: its members are the schema's keys.
    expectSameDeclarations(block.replace(/^type EnginesConfig.*$/m, ''), code, [
      'ExternalEngineRegistry',
      'AdapterContext',
    ]);
    // Fields with a default are optional in the input type.
    expect(code).toMatch(/enabled: z\._default\(z\.boolean\(\)/);
    expect(code).toMatch(/settings: z\._default\(z\.record\(z\.string\(\), z\.unknown\(\)\)/);
    const signature = /createEngineRegistry\((.*)\): ExternalEngineRegistry/.exec(block)?.[1];
    const params = signature?.split(', ').map((param) => param.replace(/\??:.*$/, ''));
    expect(params).toEqual(['factories', 'config']);
    expect(code).toMatch(
      /export function createEngineRegistry\(\n\s+factories: readonly AnyExternalAdapterFactory\[\],\n\s+config: EnginesConfig = \{\},/,
    );
    for (const match of block.matchAll(/^import \{ (\w+) \} from '\.\.\/(.*)';$/gm)) {
      const module = (await import(`../../${match[2]}`)) as Record<string, unknown>;
      expect(module[match[1] as string], match[0]).toBeDefined();
    }
  });

  it("the adapter recipe's factory is named as the registry takes engine names, and names both built-in lists", () => {
    const page = readFileSync(new URL(`../../docs/${PAGE}`, import.meta.url), 'utf8');
    const named = /Give it a factory: `\{ engine: '([^']*)'/.exec(page)?.[1];
    expect(EngineNameSchema.safeParse(named).success, named).toBe(true);
    expect(page).toMatch(/^\d\. .*`BUILTIN_ENGINE_FACTORIES` \(`shared\/external\/builtins\.ts`\)/m);
    expect(page).toContain('`BUILTIN_ENGINE_SETTINGS` (`shared/external/builtin-settings.ts`)');
    expect(source('shared/external/builtin-settings.ts')).toContain('export const BUILTIN_ENGINE_SETTINGS');
  });

  it('the http-runtime settings example is valid settings', () => {
    const settings = JSON.parse(blockWith(PAGE, '"endpoint": "https://engine.internal/runtime"').body);
    expect(HttpRuntimeSettingsSchema.safeParse(settings)).toMatchObject({ success: true });
  });

  it("the fixture engine's sketch calls only the engine's methods, and its demo CLI exists", () => {
    const block = blockWith(PAGE, 'FixtureEngine.start()').body.replace(/\/\/.*$/gm, '');
    const methods = [...new Set([...block.matchAll(/engine\.(\w+)\(/g)].map((m) => m[1] as string))];
    expect(methods.length).toBeGreaterThanOrEqual(6);
    for (const method of methods)
      expect(typeof Reflect.get(FixtureEngine.prototype, method), method).toBe('function');
    expect(typeof FixtureEngine.start).toBe('function');
    const cli = /`node (shared\/external\/fixture-engine\/cli\.ts) \d+`/.exec(
      readFileSync(new URL(`../../docs/${PAGE}`, import.meta.url), 'utf8'),
    )?.[1];
    expect(cli !== undefined && existsSync(new URL(`../../${cli}`, import.meta.url))).toBe(true);
  });

  it("the conformance sketch fills the kit's harness, and the page counts the kit's checks", () => {
    const block = blockWith(PAGE, 'describeAdapterConformance(').body;
    const keys = /async \(\) => \(\{\n\s*(.*)\n\}\)\);/.exec(block)?.[1];
    const given = [...(keys ?? '').replace(/\([^)]*\)/g, '()').matchAll(/(?:^|, )(\w+)/g)].map(
      (m) => m[1] as string,
    );
    const harness = declaration(source('test/support/external-conformance/harness.ts'), 'ConformanceHarness');
    const members = [...(harness ?? '').matchAll(/^\s*(?:readonly )?(\w+)\??[:(]/gm)].map(
      (m) => m[1] as string,
    );
    expect(given.sort()).toEqual(members.sort());
    const page = readFileSync(new URL(`../../docs/${PAGE}`, import.meta.url), 'utf8');
    expect(page).toContain(`The ${CONFORMANCE_CHECKS.length} checks cover`);
  });
});
