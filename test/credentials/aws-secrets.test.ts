/**
 * The Secrets Manager adapter and the per-owner role sessions, with recording clients: which AWS calls are
 * made, with what input, for which owner — and which are not made at all.
 */
import type { GetSecretValueCommand } from '@aws-sdk/client-secrets-manager';
import type { AssumeRoleCommand } from '@aws-sdk/client-sts';
import { describe, expect, it } from 'vitest';
import { ownerKey } from '../../shared/credentials/owner-key.ts';
import {
  OWNER_SESSION_SECONDS,
  ownerSessions,
  sessionNameFor,
} from '../../shared/credentials/owner-sessions.ts';
import { secretsManagerSecrets } from '../../shared/credentials/secrets-manager.ts';
import { FixedClock } from '../support/store.ts';

const ROLE_ARN = 'arn:aws:iam::123456789012:role/wf-credential-reader';

function recordingSecretsManager(values: Record<string, string>) {
  const calls: { owner: string; secretId: string }[] = [];
  const clientFor = async (owner: string) => ({
    send: async (command: unknown) => {
      const secretId = (command as GetSecretValueCommand).input.SecretId ?? '';
      calls.push({ owner, secretId });
      return { SecretString: values[secretId] };
    },
  });
  return { calls, clientFor: clientFor as never };
}

describe('secretsManagerSecrets', () => {
  it("reads an owner's secret with that owner's client, and caches per owner", async () => {
    const sm = recordingSecretsManager({ 'wf/auth0=7Cabc/token': 'token-value-000000001' });
    const secrets = secretsManagerSecrets({ clientFor: sm.clientFor, namePrefix: 'wf/' });

    expect(await secrets.resolve({ owner: 'auth0|abc', secret: 'wf/auth0=7Cabc/token' })).toBe(
      'token-value-000000001',
    );
    await secrets.resolve({ owner: 'auth0|abc', secret: 'wf/auth0=7Cabc/token' });

    expect(sm.calls).toEqual([{ owner: 'auth0|abc', secretId: 'wf/auth0=7Cabc/token' }]);
  });

  it("refuses another owner's secret without calling AWS", async () => {
    const sm = recordingSecretsManager({ 'wf/bob/token': 'bob-value-0000000001' });
    const secrets = secretsManagerSecrets({ clientFor: sm.clientFor, namePrefix: 'wf/' });

    await expect(secrets.resolve({ owner: 'alice', secret: 'wf/bob/token' })).rejects.toThrow(
      /not one of this owner's secrets/,
    );
    await expect(
      secrets.resolve({
        owner: 'alice',
        secret: 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:wf/bob/token-AbCdEf',
      }),
    ).rejects.toThrow(/not one of this owner's secrets/);
    expect(sm.calls).toEqual([]);
  });

  it('reads again after the TTL (a rotated value is used without a redeploy)', async () => {
    const clock = new FixedClock();
    const values = { 'wf/alice/token': 'first-value-00000001' };
    const sm = recordingSecretsManager(values);
    const secrets = secretsManagerSecrets({
      clientFor: sm.clientFor,
      namePrefix: 'wf/',
      ttlMs: 1000,
      nowMs: () => clock.nowMs(),
    });
    await secrets.resolve({ owner: 'alice', secret: 'wf/alice/token' });

    values['wf/alice/token'] = 'second-value-0000002';
    clock.advance(1000);

    expect(await secrets.resolve({ owner: 'alice', secret: 'wf/alice/token' })).toBe('second-value-0000002');
    expect(sm.calls).toHaveLength(2);
  });
});

describe('ownerSessions', () => {
  function recordingSts() {
    const calls: AssumeRoleCommand['input'][] = [];
    let n = 0;
    const sts = {
      send: async (command: unknown) => {
        calls.push((command as AssumeRoleCommand).input);
        n += 1;
        return {
          Credentials: {
            AccessKeyId: `ASIA${n}`,
            SecretAccessKey: 'secret',
            SessionToken: `token-${n}`,
            Expiration: new Date(clock.nowMs() + OWNER_SESSION_SECONDS * 1000),
          },
        };
      },
    };
    return { calls, sts: sts as never };
  }
  const clock = new FixedClock();

  it('assumes the reader role tagged wf-owner=<ownerKey>, one session per owner, reused until near expiry', async () => {
    // Prepare
    const { calls, sts } = recordingSts();
    const sessionFor = ownerSessions({ sts, roleArn: ROLE_ARN, nowMs: () => clock.nowMs() });
    const owner = 'repo:org/x:ref:refs/heads/main';

    // Act
    const first = await sessionFor(owner);
    const again = await sessionFor(owner);
    await sessionFor('alice');
    clock.advance((OWNER_SESSION_SECONDS - 5 * 60) * 1000);
    const renewed = await sessionFor(owner);

    // Assess
    expect(again).toBe(first);
    expect(renewed.sessionToken).not.toBe(first.sessionToken);
    expect(calls).toEqual([
      {
        RoleArn: ROLE_ARN,
        RoleSessionName: sessionNameFor(owner),
        DurationSeconds: OWNER_SESSION_SECONDS,
        Tags: [{ Key: 'wf-owner', Value: ownerKey(owner) }],
      },
      {
        RoleArn: ROLE_ARN,
        RoleSessionName: sessionNameFor('alice'),
        DurationSeconds: OWNER_SESSION_SECONDS,
        Tags: [{ Key: 'wf-owner', Value: 'alice' }],
      },
      {
        RoleArn: ROLE_ARN,
        RoleSessionName: sessionNameFor(owner),
        DurationSeconds: OWNER_SESSION_SECONDS,
        Tags: [{ Key: 'wf-owner', Value: ownerKey(owner) }],
      },
    ]);
    // https://docs.aws.amazon.com/STS/latest/APIReference/API_AssumeRole.html: 2-64 of [\w+=,.@-]
    expect(sessionNameFor(owner)).toMatch(/^[\w+=,.@-]{2,64}$/);
  });

  it('does not cache a failed AssumeRole', async () => {
    let fail = true;
    const sts = {
      send: async () => {
        if (fail) throw Object.assign(new Error('denied'), { name: 'AccessDenied' });
        return {
          Credentials: {
            AccessKeyId: 'ASIA1',
            SecretAccessKey: 's',
            SessionToken: 't',
            Expiration: new Date(clock.nowMs() + 900_000),
          },
        };
      },
    };
    const sessionFor = ownerSessions({ sts: sts as never, roleArn: ROLE_ARN, nowMs: () => clock.nowMs() });
    await expect(sessionFor('alice')).rejects.toThrow('denied');
    fail = false;
    expect((await sessionFor('alice')).accessKeyId).toBe('ASIA1');
  });

  it('keeps the sessions of the most recent owners only: an evicted one is assumed again', async () => {
    // Prepare
    const { calls, sts } = recordingSts();
    const sessionFor = ownerSessions({ sts, roleArn: ROLE_ARN, nowMs: () => clock.nowMs(), maxOwners: 2 });
    await sessionFor('alice');
    await sessionFor('bob');

    // Act: carol's session pushes out alice's, the least recently used.
    await sessionFor('carol');
    await sessionFor('bob');
    await sessionFor('alice');

    // Assess
    expect(calls.map((call) => call.RoleSessionName)).toEqual(
      ['alice', 'bob', 'carol', 'alice'].map(sessionNameFor),
    );
  });
});
