/**
 * The local Step Functions endpoint refuses what AWS refuses: each documented member constraint of the API
 * reference (shared/local/sfn/request-rules.ts, read 2026-12-04), through the real @aws-sdk/client-sfn on
 * loopback, with AWS's error name and a message naming the member; and each boundary value is taken.
 */

import { readFileSync } from 'node:fs';
import {
  DescribeExecutionCommand,
  InvalidName,
  ListExecutionsCommand,
  SendTaskFailureCommand,
  SendTaskHeartbeatCommand,
  SendTaskSuccessCommand,
  StartExecutionCommand,
  StopExecutionCommand,
  ValidationException,
} from '@aws-sdk/client-sfn';
import { afterEach, describe, expect, it } from 'vitest';
import { SFN_REQUEST_RULES } from '../../../shared/local/sfn/request-rules.ts';
import { byTurn } from '../fixtures/fake-handlers.ts';
import { fixtureDefinition } from '../fixtures/fixture-definition.ts';
import { type Harness, pointer, startHarness } from '../fixtures/harness.ts';

const waitForever = byTurn({ next: 'await_approval', approvalTimeoutSeconds: 3600 });
const EXECUTION = 'arn:aws:states:local:000000000000:execution:local:none';

describe('Local Step Functions endpoint: request rules', () => {
  let harness: Harness | undefined;
  const start = async () => {
    harness = await startHarness(fixtureDefinition, waitForever);
    return harness;
  };
  afterEach(async () => {
    await harness?.close();
    harness = undefined;
  });

  /** A running execution waiting on its approval, and the wait's task token. */
  const waiting = async (runId: string) => {
    const { startRun, fake } = await start();
    const executionArn = await startRun(runId, runId);
    const { taskToken } = await fake.approvalRequested(runId);
    return { executionArn, taskToken };
  };

  describe('StartExecution', () => {
    it.each([
      [
        'a name of 81 characters',
        { name: 'n'.repeat(81) },
        `Value '${'n'.repeat(81)}' at 'name' failed to satisfy constraint: Member must have length less than or equal to 80`,
      ],
      [
        'an empty name',
        { name: '' },
        "Value '' at 'name' failed to satisfy constraint: Member must have length greater than or equal to 1",
      ],
      [
        'a traceHeader of 257 characters',
        { traceHeader: 't'.repeat(257) },
        "at 'traceHeader' failed to satisfy constraint: Member must have length less than or equal to 256",
      ],
      [
        'a traceHeader that is not ASCII',
        { traceHeader: 'Root=é' },
        "Value 'Root=é' at 'traceHeader' failed to satisfy constraint: Member must satisfy regular expression pattern: \\p{ASCII}*",
      ],
    ])('refuses %s with ValidationException naming the member', async (_case, fields, message) => {
      // Prepare
      const { client, sfn } = await start();

      // Act
      const sent = client.send(
        new StartExecutionCommand({ stateMachineArn: sfn.stateMachineArn, ...fields }),
      );

      // Assess
      await expect(sent).rejects.toBeInstanceOf(ValidationException);
      await expect(sent).rejects.toThrow(message);
    });

    it.each([
      ['U+FFFE', 'run\ufffe'],
      ['U+FFFF', 'run\uffff'],
      ['a lone surrogate', 'run\ud800'],
      ['U+10FFFF', 'run\u{10ffff}'],
    ])('refuses a name with %s as InvalidName', async (_case, name) => {
      // Prepare
      const { client, sfn } = await start();

      // Act
      const sent = client.send(new StartExecutionCommand({ stateMachineArn: sfn.stateMachineArn, name }));

      // Assess
      await expect(sent).rejects.toBeInstanceOf(InvalidName);
    });

    it('takes a name of 80 characters and a traceHeader of 256 ASCII characters', async () => {
      // Prepare
      const { client, sfn } = await start();
      const name = 'n'.repeat(80);

      // Act
      const started = await client.send(
        new StartExecutionCommand({
          stateMachineArn: sfn.stateMachineArn,
          name,
          input: JSON.stringify(pointer(name)),
          traceHeader: 't'.repeat(256),
        }),
      );

      // Assess
      expect(started.executionArn).toMatch(/:n{80}$/);
    });
  });

  describe('StopExecution and SendTaskFailure', () => {
    it('refuses an error over 256 and a cause over 32,768 characters, naming both and not quoting them', async () => {
      // Prepare
      const { executionArn, taskToken } = await waiting('run_caps');
      const { client, endpoint } = harness as Harness;
      const fields = { error: 'E'.repeat(257), cause: 'c'.repeat(32_769) };

      // Act
      const stop = client.send(new StopExecutionCommand({ executionArn, ...fields }));
      const failure = client.send(new SendTaskFailureCommand({ taskToken, ...fields }));

      // Assess
      for (const sent of [stop, failure]) {
        await expect(sent).rejects.toBeInstanceOf(ValidationException);
        await expect(sent).rejects.toThrow(
          "2 validation errors detected: Value at 'error' failed to satisfy constraint: Member must have length less than or equal to 256; " +
            "Value at 'cause' failed to satisfy constraint: Member must have length less than or equal to 32768",
        );
      }
      expect(endpoint.refusals.map(({ operation, code }) => `${operation} ${code}`)).toEqual([
        'StopExecution ValidationException',
        'SendTaskFailure ValidationException',
      ]);
      expect((await client.send(new DescribeExecutionCommand({ executionArn }))).status).toBe('RUNNING');
    });

    it('takes an error of 256 and a cause of 32,768 characters', async () => {
      // Prepare
      const { executionArn, taskToken } = await waiting('run_bounds');
      const { client, sfn, endpoint } = harness as Harness;
      const fields = { error: 'E'.repeat(256), cause: 'c'.repeat(32_768) };

      // Act
      await client.send(new SendTaskFailureCommand({ taskToken, ...fields }));
      const result = await sfn.waitForExecution(executionArn);

      // Assess
      expect(result.status).not.toBe('RUNNING');
      expect(endpoint.refusals).toEqual([]);
    });

    it('takes a stop with an error of 256 and a cause of 32,768 characters', async () => {
      // Prepare
      const { executionArn } = await waiting('run_stop_bounds');
      const { client } = harness as Harness;

      // Act
      await client.send(
        new StopExecutionCommand({ executionArn, error: 'E'.repeat(256), cause: 'c'.repeat(32_768) }),
      );

      // Assess
      const described = await client.send(new DescribeExecutionCommand({ executionArn }));
      expect(described).toMatchObject({ status: 'ABORTED', cause: 'c'.repeat(32_768) });
    });

    it('refuses an executionArn over 256 characters', async () => {
      // Prepare
      const { client } = await start();

      // Act
      const sent = client.send(new StopExecutionCommand({ executionArn: `${EXECUTION}${'x'.repeat(256)}` }));

      // Assess
      await expect(sent).rejects.toThrow(
        "at 'executionArn' failed to satisfy constraint: Member must have length less than or equal to 256",
      );
    });
  });

  describe('task tokens', () => {
    it.each([
      ['SendTaskSuccess', (taskToken: string) => new SendTaskSuccessCommand({ taskToken, output: '{}' })],
      ['SendTaskFailure', (taskToken: string) => new SendTaskFailureCommand({ taskToken })],
      ['SendTaskHeartbeat', (taskToken: string) => new SendTaskHeartbeatCommand({ taskToken })],
    ])('%s refuses a token of 2,049 characters and an empty one', async (_operation, command) => {
      // Prepare
      const { client } = await start();

      // Act
      const long = client.send(command('t'.repeat(2049)) as SendTaskHeartbeatCommand);
      const empty = client.send(command('') as SendTaskHeartbeatCommand);

      // Assess
      await expect(long).rejects.toBeInstanceOf(ValidationException);
      await expect(long).rejects.toThrow(
        "at 'taskToken' failed to satisfy constraint: Member must have length less than or equal to 2048",
      );
      await expect(empty).rejects.toThrow(
        "Value '' at 'taskToken' failed to satisfy constraint: Member must have length greater than or equal to 1",
      );
    });

    it('refuses a SendTaskSuccess without output', async () => {
      // Prepare
      const { taskToken } = await waiting('run_no_output');
      const { client } = harness as Harness;

      // Act
      const sent = client.send(new SendTaskSuccessCommand({ taskToken, output: undefined }));

      // Assess
      await expect(sent).rejects.toThrow(
        "Value null at 'output' failed to satisfy constraint: Member must not be null",
      );
    });
  });

  describe('DescribeExecution and ListExecutions', () => {
    it.each([
      [
        'DescribeExecution with an unknown includedData',
        new DescribeExecutionCommand({ executionArn: EXECUTION, includedData: 'EVERYTHING' as 'ALL_DATA' }),
        "Value 'EVERYTHING' at 'includedData' failed to satisfy constraint: Member must satisfy enum value set: [ALL_DATA, METADATA_ONLY]",
      ],
      [
        'ListExecutions with maxResults 1001',
        new ListExecutionsCommand({ stateMachineArn: 'arn', maxResults: 1001 }),
        "Value '1001' at 'maxResults' failed to satisfy constraint: Member must have value less than or equal to 1000",
      ],
      [
        'ListExecutions with maxResults -1',
        new ListExecutionsCommand({ stateMachineArn: 'arn', maxResults: -1 }),
        "Value '-1' at 'maxResults' failed to satisfy constraint: Member must have value greater than or equal to 0",
      ],
      [
        'ListExecutions with a nextToken of 3,097 characters',
        new ListExecutionsCommand({ stateMachineArn: 'arn', nextToken: '1'.repeat(3097) }),
        "at 'nextToken' failed to satisfy constraint: Member must have length less than or equal to 3096",
      ],
      [
        'ListExecutions with an unknown statusFilter',
        new ListExecutionsCommand({ stateMachineArn: 'arn', statusFilter: 'DONE' as 'RUNNING' }),
        "Value 'DONE' at 'statusFilter' failed to satisfy constraint: Member must satisfy enum value set: [RUNNING, SUCCEEDED, FAILED, TIMED_OUT, ABORTED, PENDING_REDRIVE]",
      ],
    ])('refuses %s', async (_case, command, message) => {
      // Prepare
      const { client } = await start();

      // Act
      const sent = client.send(command as DescribeExecutionCommand);

      // Assess
      await expect(sent).rejects.toBeInstanceOf(ValidationException);
      await expect(sent).rejects.toThrow(message);
    });

    it('takes maxResults 1000 and 0 (the default page)', async () => {
      // Prepare
      const { client, sfn } = await start();

      // Act
      const pages = await Promise.all(
        [1000, 0].map((maxResults) =>
          client.send(new ListExecutionsCommand({ stateMachineArn: sfn.stateMachineArn, maxResults })),
        ),
      );

      // Assess
      expect(pages.map((page) => page.executions)).toEqual([[], []]);
    });
  });

  it('are each listed in the README, by operation and member', () => {
    // Prepare
    const readme = readFileSync(new URL('../../../shared/local/sfn/README.md', import.meta.url), 'utf8');
    const section = readme.slice(readme.indexOf('## Request rules'), readme.indexOf('## The context object'));

    // Act
    const rows = section.split('\n').filter((line) => line.startsWith('| `'));
    const unlisted = Object.entries(SFN_REQUEST_RULES).flatMap(([operation, members]) =>
      Object.keys(members)
        .filter(
          (member) =>
            !rows.some((row) => row.startsWith(`| \`${operation}\``) && row.includes(`\`${member}\``)),
        )
        .map((member) => `${operation}.${member}`),
    );

    // Assess
    expect(unlisted).toEqual([]);
  });
});
