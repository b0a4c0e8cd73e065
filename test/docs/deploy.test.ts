/**
 * The example blocks of docs/deploy.md, checked against the code: CDK context (`-c key=value`) is read and
 * accepted by infra/context.ts (no synth), stack outputs named in commands exist, JSON bodies are what the code
 * parses or answers, `wf` lines parse (sent to a port where nothing listens).
 */
import { existsSync, readFileSync } from 'node:fs';
import { RemovalPolicy } from 'aws-cdk-lib';
import type { Node } from 'constructs';
import { describe, expect, it } from 'vitest';
import { EMAIL } from '../../infra/constructs/notice-topic.ts';
import { settingsFromContext } from '../../infra/context.ts';
import { checkApproversReachable } from '../../shared/api/approver-reach.ts';
import { ApiError } from '../../shared/api/errors.ts';
import { parseKeyring } from '../../shared/approvals/index.ts';
import { costCommand } from '../../shared/cost/command.ts';
import { ownerKey } from '../../shared/credentials/owner-key.ts';
import { OwnerIdSchema } from '../../shared/schemas/common.ts';
import { EVENT_OWNER_KEY } from '../../shared/triggers/event-owner.ts';
import { wf } from '../cli/support.ts';
import { synthRuntime } from '../infra/synth.ts';
import { blockWith, fencedBlocks } from './fenced-blocks.ts';

const PAGE = 'deploy.md';
const UNREACHABLE = 'http://127.0.0.1:1';
const source = (path: string) => readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8');
const page = source(`docs/${PAGE}`);
const shell = fencedBlocks(PAGE).filter((block) => block.info === 'sh');
/** Shell lines with continuations joined. */
const shellLines = shell.flatMap((block) => block.body.replace(/\\\n\s*/g, '').split('\n'));

/** Every `-c key=value` of the page's commands (quoted or not), placeholders (`<same map>`) left out. */
const contexts = shellLines
  .flatMap((line) =>
    [...line.replace(/\s+#.*$/, '').matchAll(/-c (?:'([^']*)'|(\S+))/g)].map((m) => (m[1] ?? m[2]) as string),
  )
  .filter((pair) => !/=<[^>]*>$/.test(pair))
  .map((pair) => [pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1)] as const);

/** settingsFromContext over a fake node: which keys it read, and what it made of them. */
function fromContext(context: Record<string, string>) {
  const read = new Set<string>();
  const node = {
    tryGetContext: (key: string) => {
      read.add(key);
      return context[key];
    },
  } as unknown as Node;
  return { settings: settingsFromContext(node), read };
}

const words = (line: string) =>
  [...line.matchAll(/'([^']*)'|"([^"]*)"|(\S+)/g)].map((m) => (m[1] ?? m[2] ?? m[3]) as string);

describe('docs/deploy.md', () => {
  it('has the fourteen blocks this file checks', () => {
    expect(fencedBlocks(PAGE).map((block) => block.info)).toEqual([
      'ts',
      ...['sh', 'sh', 'sh', 'json', 'sh', 'json', 'sh', 'sh', 'json', 'sh', 'sh', 'sh', 'sh'],
    ]);
  });

  it('the alert topics sketch uses the runtime props', () => {
    const props = source('infra/constructs/workflow-runtime-props.ts');
    const keys = [...blockWith(PAGE, 'alertTopics: [').body.matchAll(/^\s+(\w+):/gm)].map((m) => m[1]);
    expect(keys).toEqual(['alertTopic', 'alertTopics']);
    for (const key of keys) expect(props).toMatch(new RegExp(`readonly ${key}\\?:`));
  });

  it('finds the context examples', () => {
    expect(contexts.map(([key]) => key)).toEqual(['approvers', 'approvers', 'approvers', 'ownerNotices']);
  });

  it.each(contexts)('-c %s=%s is read and accepted by infra/context.ts', (key, value) => {
    const { settings, read } = fromContext({ [key]: value });
    expect(read).toContain(key);
    // What the constructs check at synth (ApprovalNotices, OwnerNotices): an email address, a valid owner id.
    const declared = Reflect.get(settings.runtime, key) as {
      email: string;
      owner?: string;
      owners?: string[];
    }[];
    expect(declared.length).toBeGreaterThan(0);
    for (const { email, owner, owners } of declared) {
      expect(email).toMatch(EMAIL);
      for (const id of owners ?? [owner])
        if (id !== '*') expect(OwnerIdSchema.safeParse(id).success, id).toBe(true);
    }
  });

  it('the refusal of a comma-separated approvers list quotes itself as the page does and names its sections', () => {
    const upgrading =
      /\*\*Upgrading from a comma-separated `approvers` list\.\*\*[^\n]*\n[^(]*\(`([^`]*) …`\)/.exec(page);
    expect(upgrading?.[1]?.replace(/\s+/g, ' ')).toBe(
      'context approvers must map owner ids to approver emails',
    );
    let refusal = '';
    try {
      fromContext({ approvers: 'a@example.com,b@example.com' });
    } catch (error) {
      refusal = (error as Error).message;
    }
    expect(refusal.startsWith('context approvers must map owner ids to approver emails')).toBe(true);
    const [, section, part] = /docs\/deploy\.md "([^"]+)", "([^"]+)"/.exec(refusal) ?? [];
    expect(page).toContain(`\n## ${section}\n`);
    const body = page.slice(
      page.indexOf(`\n## ${section}\n`),
      page.indexOf('\n## ', page.indexOf(`\n## ${section}\n`) + 1),
    );
    expect(body.replaceAll('`', '')).toContain(`**${part}.**`);
  });

  it('every stack output a command names is one the stack has', () => {
    const stack = source('infra/workflow-runtime-stack.ts');
    const outputs = [...new Set(shellLines.join('\n').matchAll(/<([A-Z][A-Za-z]+)(?: output)?>/g))].map(
      (m) => m[1],
    );
    expect(outputs.length).toBeGreaterThanOrEqual(3);
    for (const output of outputs) expect(stack, output).toMatch(new RegExp(`\\b${output}\\b`));
  });

  it('the undeclared-approver refusal is the body the API answers', () => {
    const documented = JSON.parse(blockWith(PAGE, '"validation_failed"').body);
    const field = documented.error.fields[0];
    const [, action] = /^gates\.(\w+)\.approvers\[0\]$/.exec(field.path) ?? [];
    const approver = /approver '([^']+)'/.exec(field.message)?.[1];
    const definition = {
      name: 'w',
      gates: { [action ?? '']: { mode: 'needs_approval', approvers: [approver] } },
    };
    let error: unknown;
    try {
      checkApproversReachable(definition as never, { channel: 'sns', reaches: () => false } as never, 'o');
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ApiError);
    const api = error as ApiError;
    expect({ code: api.code, message: api.message, status: api.status }).toEqual({
      code: documented.error.code,
      message: documented.error.message,
      status: 400,
    });
    expect(api.fields?.[0]?.path).toBe(field.path);
    expect(api.fields?.[0]?.message.startsWith(field.message.replace(/…$/, ''))).toBe(true);
  });

  it('the signing keyring example is one parseKeyring accepts', () => {
    expect(parseKeyring(blockWith(PAGE, '"current": { "kid": "k1"').body).current.kid).toBe('k1');
  });

  it('`wf owner-key` prints what the page says, and the secret name built from it is the credRefs one', async () => {
    const line = blockWith(PAGE, "wf owner-key 'auth0|abc'").body;
    const [command, printed] = line.split(/\s+#\s+/);
    const result = await wf(words(command ?? '').slice(1));
    expect(result.stdout).toBe(printed);
    const script = blockWith(PAGE, 'KEY=$(wf owner-key "$OWNER")').body;
    const owner = /^OWNER='(.*)'$/m.exec(script)?.[1] ?? '';
    const name = /--name "(.*)"/.exec(script)?.[1]?.replace('$KEY', ownerKey(owner));
    expect(page).toContain(`credRefs: { github_token: { secret: "${name}", field: token } }`);
    expect(script).toContain(`--tags "Key=${'wf-owner'},Value=$KEY"`);
  });

  it('the PutEvents statement and the example event name the bus and carry the owner stamp', () => {
    const statement = JSON.parse(blockWith(PAGE, '"Action": "events:PutEvents"').body);
    expect(statement).toEqual({ Effect: 'Allow', Action: 'events:PutEvents', Resource: '<EventBusArn>' });
    expect(source('infra/constructs/triggers.ts')).toContain('public grantPutEvents(');
    const entries = JSON.parse(
      /--entries '([\s\S]*?)'/.exec(blockWith(PAGE, 'aws events put-events').body)?.[1] ?? '',
    );
    expect(Object.keys(entries[0]).sort()).toEqual(['Detail', 'DetailType', 'EventBusName', 'Source']);
    expect(JSON.parse(entries[0].Detail)).toHaveProperty([EVENT_OWNER_KEY]);
  });

  const wfLines = shellLines
    .filter((line) => line.startsWith('npx wf '))
    .map((line) => line.replace(/\s+#.*$/, ''));
  it.each(wfLines)('%s parses and goes to send its request', async (line) => {
    expect(wfLines).toHaveLength(6);
    const argv = words(line)
      .slice(2)
      .map((word) => (word === '<runId>' ? 'run_0000000000000000000000000000' : word));
    if (argv.includes('--public-key')) {
      // It reads the key file first: --help still parses the command and its options.
      expect((await wf([...argv, '--help'])).code).toBe(0);
      return;
    }
    const result = await wf(argv, { WF_URL: UNREACHABLE, WF_API_KEY: 'wfl_docs_example_key' });
    expect(result.stderr).toBe(
      `wf: cannot reach the runtime at ${UNREACHABLE} (fetch failed); is it running? (wf local up)`,
    );
  });

  it("the upgrade check's script and options exist", () => {
    const line = shellLines.find((each) => each.includes('check-subscriptions.ts')) ?? '';
    const [, script, ...args] = words(line.replace(/^npx /, ''));
    const code = source(script ?? '');
    for (const flag of args.filter((arg) => arg.startsWith('--')))
      expect(code).toContain(`${flag.slice(2)}: { type:`);
    expect(existsSync(new URL(`../../${script}`, import.meta.url))).toBe(true);
  });
});

describe('docs/deploy.md, Teardown', () => {
  const teardown = page.slice(page.indexOf('\n## Teardown\n'), page.indexOf('\n## Cost notes\n'));
  /** What the section calls each resource type a destroy leaves behind. */
  const NAMED = {
    'AWS::DynamoDB::Table': '**The table**',
    'AWS::KMS::Key': '**The audit signing key**',
    'AWS::Logs::LogGroup': '**Log groups**',
  } as const;
  /** The resource types the stack keeps when it is destroyed (DeletionPolicy Retain). */
  const retainedTypes = (removalPolicy?: RemovalPolicy) => {
    const { template } = synthRuntime(removalPolicy === undefined ? undefined : { removalPolicy });
    const resources = template.toJSON().Resources as Record<
      string,
      { Type: string; DeletionPolicy?: string }
    >;
    return [
      ...new Set(
        Object.values(resources)
          .filter((resource) => resource.DeletionPolicy === 'Retain')
          .map((resource) => resource.Type),
      ),
    ].sort();
  };

  it('names every kind of resource a destroy leaves behind, and the stack retains no other', () => {
    expect(retainedTypes()).toEqual(Object.keys(NAMED).sort());
    for (const name of Object.values(NAMED)) expect(teardown).toContain(name);
  });

  it('leaves nothing behind under -c removalPolicy=destroy', () => {
    expect(retainedTypes(RemovalPolicy.DESTROY)).toEqual([]);
    expect(teardown).toContain('the audit signing key is scheduled for deletion');
  });
});

describe('docs/deploy.md, Cost per 1,000 runs', () => {
  /** What `wf cost <args>` totals per 1,000 runs, as it prints it. */
  const totalOf = async (args: string[]) => {
    const printed: string[] = [];
    expect(await costCommand([...args, '--json'], (text) => printed.push(text))).toBe(0);
    const { totalUsd } = JSON.parse(printed.join('')) as { totalUsd: number };
    return `$${(totalUsd * 1000).toFixed(4)}`;
  };
  const lines = page.split('\n');
  const header = lines.findIndex((line) =>
    line.startsWith(
      '| item | API start, warm (default) | `--trigger schedule` | `--trigger event` | `--cold-turns` |',
    ),
  );
  const totals =
    lines.slice(header).find((line) => line.startsWith('| **total, excluding model tokens** |')) ?? '';

  it("the trigger and cold-turn table's totals are what `wf cost` prints for each shape", async () => {
    expect(header).toBeGreaterThan(0);
    const documented = [...totals.matchAll(/\*\*(\$\d+\.\d{4})\*\*/g)].map((m) => m[1]);
    expect(documented).toEqual([
      await totalOf([]),
      await totalOf(['--trigger', 'schedule']),
      await totalOf(['--trigger', 'event']),
      await totalOf(['--cold-turns']),
    ]);
  });

  it('the gated-call totals after it are what `wf cost --gated-turns 1` prints, cold and warm', async () => {
    const sentence = /`wf cost --gated-turns 1 --cold-turns` (\$\d+\.\d{4}), warm (\$\d+\.\d{4})/.exec(page);
    expect(sentence?.slice(1)).toEqual([
      await totalOf(['--gated-turns', '1', '--cold-turns']),
      await totalOf(['--gated-turns', '1']),
    ]);
  });
});
