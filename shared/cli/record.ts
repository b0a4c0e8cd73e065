/**
 * `wf run start WORKFLOW --record DIR [--record-name NAME]`: runs it to the end against a local stack that
 * talks to Claude (started with ANTHROPIC_API_KEY) and saves the conversation as
 * `DIR/<workflow>.<conversation>.fixture.json`, to replay offline (`wf local up --fixtures DIR`) with drift
 * checks (docs/local-development.md). A workflow keeps one fixture per conversation: NAME, or else a hash of
 * the run's first user message (its task, instants and run ids masked), so recording another input adds a
 * conversation and recording the same input again replaces it. On replay the scripted server answers each
 * run with the conversation whose first user message is the run's.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { stable } from '../model/scripted-expect.ts';
import type { ScriptedFixture } from '../model/scripted-fixture.ts';
import type { Run } from '../schemas/run.ts';
import type { ApiClient } from './client.ts';
import { type Output, UsageError } from './commands.ts';

const NAME = /^[A-Za-z0-9_-]{1,64}$/;

/** `--record-name`, checked before the run starts. */
export function recordName(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  if (!NAME.test(value)) throw new UsageError('--record-name must be 1-64 letters, digits, _ or -');
  return value;
}

/** The conversation's name when none is given: 12 hex digits of SHA-256 of its masked first user message. */
export function conversationOf(fixture: ScriptedFixture): string {
  const first = fixture.turns[0]?.expect?.recorded?.firstUser ?? '';
  return createHash('sha256').update(stable(first)).digest('hex').slice(0, 12);
}

export function saveRecording(client: ApiClient, dir: string, out: Output, name?: string) {
  return async (run: Run) => {
    const { fixture } = await client.get<{ fixture: ScriptedFixture }>(`/local/runs/${run.runId}/recording`);
    const conversation = name ?? conversationOf(fixture);
    mkdirSync(dir, { recursive: true });
    const path = join(dir, `${run.workflowName}.${conversation}.fixture.json`);
    writeFileSync(path, `${JSON.stringify({ ...fixture, conversation }, null, 2)}\n`);
    out.line(`recorded ${fixture.turns.length} turn(s) to ${path}`);
  };
}
