import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { aslProblems } from '../../infra/asl-rules.ts';

/** A one-Task machine with the given Retry/Catch, and a `Handle` state for catchers to go to. */
const machine = (task: Record<string, unknown>) => ({
  StartAt: 'Work',
  States: {
    Work: { Type: 'Task', Resource: 'arn:aws:lambda:local:0:function:f', End: true, ...task },
    Handle: { Type: 'Succeed' },
  },
});
const retry = (...retriers: Record<string, unknown>[]) => machine({ Retry: retriers });
const catches = (...catchers: Record<string, unknown>[]) => machine({ Catch: catchers });

describe('aslProblems', () => {
  it('accepts a sound definition: specific retriers, then States.ALL last; catchers to existing states', () => {
    const sound = machine({
      Retry: [
        {
          ErrorEquals: ['Lambda.Unknown', 'States.Timeout'],
          IntervalSeconds: 2,
          MaxAttempts: 2,
          BackoffRate: 2,
          MaxDelaySeconds: 60,
          JitterStrategy: 'FULL',
        },
        { ErrorEquals: ['States.ALL'], MaxAttempts: 0 },
      ],
      Catch: [
        { ErrorEquals: ['States.Timeout'], Next: 'Handle' },
        { ErrorEquals: ['States.ALL'], Next: 'Handle', ResultPath: '$.error' },
      ],
    });
    expect(aslProblems(sound)).toEqual([]);
  });

  it.each([
    [
      'States.ALL before another retrier',
      retry({ ErrorEquals: ['States.ALL'] }, { ErrorEquals: ['Lambda.Unknown'] }),
      [
        'Work: Retry[0].ErrorEquals: States.ALL must be in the last entry',
        'Work: Retry[1].ErrorEquals: Lambda.Unknown is already matched by an earlier entry',
      ],
    ],
    [
      'States.ALL with other names',
      retry({ ErrorEquals: ['Lambda.Unknown', 'States.ALL'] }),
      ['Work: Retry[0].ErrorEquals: States.ALL must appear alone'],
    ],
    [
      'an empty ErrorEquals',
      retry({ ErrorEquals: [] }),
      ['Work: Retry[0].ErrorEquals: must be a non-empty array of error names'],
    ],
    [
      'a missing ErrorEquals',
      retry({ MaxAttempts: 2 }),
      ['Work: Retry[0].ErrorEquals: must be a non-empty array of error names'],
    ],
    [
      'a negative MaxAttempts',
      retry({ ErrorEquals: ['E'], MaxAttempts: -1 }),
      ['Work: Retry[0].MaxAttempts: must be an integer from 0 to 99999999'],
    ],
    [
      'a MaxAttempts over AWS’s limit',
      retry({ ErrorEquals: ['E'], MaxAttempts: 100_000_000 }),
      ['Work: Retry[0].MaxAttempts: must be an integer from 0 to 99999999'],
    ],
    [
      'a BackoffRate below 1',
      retry({ ErrorEquals: ['E'], BackoffRate: 0.5 }),
      ['Work: Retry[0].BackoffRate: must be a number of at least 1.0'],
    ],
    [
      'a zero IntervalSeconds',
      retry({ ErrorEquals: ['E'], IntervalSeconds: 0 }),
      ['Work: Retry[0].IntervalSeconds: must be an integer from 1 to 99999999'],
    ],
    [
      'a MaxDelaySeconds of a year and a day',
      retry({ ErrorEquals: ['E'], MaxDelaySeconds: 31_622_401 }),
      ['Work: Retry[0].MaxDelaySeconds: must be an integer from 1 to 31622400'],
    ],
    [
      'an unknown JitterStrategy',
      retry({ ErrorEquals: ['E'], JitterStrategy: 'HALF' }),
      ['Work: Retry[0].JitterStrategy: must be FULL or NONE'],
    ],
    [
      'a misspelt predefined error',
      retry({ ErrorEquals: ['States.TimeOut'] }),
      ['Work: Retry[0].ErrorEquals: States.TimeOut is not a predefined error name'],
    ],
    [
      'a name that an earlier retrier already takes',
      retry({ ErrorEquals: ['Lambda.Unknown'] }, { ErrorEquals: ['Lambda.Unknown'], MaxAttempts: 9 }),
      ['Work: Retry[1].ErrorEquals: Lambda.Unknown is already matched by an earlier entry'],
    ],
    [
      'a catcher with States.ALL first',
      catches({ ErrorEquals: ['States.ALL'], Next: 'Handle' }, { ErrorEquals: ['E'], Next: 'Handle' }),
      [
        'Work: Catch[0].ErrorEquals: States.ALL must be in the last entry',
        'Work: Catch[1].ErrorEquals: E is already matched by an earlier entry',
      ],
    ],
    [
      'a catcher going nowhere',
      catches({ ErrorEquals: ['E'], Next: 'Nowhere' }),
      ['Work: Catch[0].Next: must name a state of this machine'],
    ],
  ])('reports %s', (_case, definition, problems) => {
    expect(aslProblems(definition)).toEqual(problems);
  });

  it('reports Retry on a state that cannot have it, and looks inside Parallel branches', () => {
    const definition = {
      StartAt: 'Fork',
      States: {
        Fork: {
          Type: 'Parallel',
          End: true,
          Branches: [
            {
              StartAt: 'Inner',
              States: { Inner: { Type: 'Pass', End: true, Retry: [{ ErrorEquals: ['E'] }] } },
            },
          ],
        },
      },
    };
    expect(aslProblems(definition)).toEqual([
      'Fork/Inner: Retry: only Task, Parallel and Map states may have it',
    ]);
  });

  it('passes the hand-written contract fixture the local runner is also tested on', () => {
    const fixture = new URL('../local/fixtures/run-state-machine.asl.json', import.meta.url);
    expect(aslProblems(JSON.parse(readFileSync(fixture, 'utf8')))).toEqual([]);
  });

  describe('Wait states', () => {
    const waitMachine = (wait: Record<string, unknown>, rule: Record<string, unknown>, extra = {}) => ({
      StartAt: 'Route',
      States: {
        Route: { Type: 'Choice', Choices: [{ ...rule, Next: 'Pause' }], Default: 'Done', ...extra },
        Pause: { Type: 'Wait', Next: 'Done', ...wait },
        Done: { Type: 'Succeed' },
      },
    });
    const guarded = {
      And: [
        { Variable: '$.next', StringEquals: 'wait' },
        { Variable: '$.waitSeconds', IsPresent: true },
        { Variable: '$.waitSeconds', IsNumeric: true },
      ],
    };

    it('accepts a SecondsPath Wait reached only by a rule that checks the path is present and numeric', () => {
      expect(aslProblems(waitMachine({ SecondsPath: '$.waitSeconds' }, guarded))).toEqual([]);
    });

    it('reports a SecondsPath Wait reached by an unguarded rule, a Default or a plain Next', () => {
      const unguarded = { Variable: '$.next', StringEquals: 'wait' };
      expect(aslProblems(waitMachine({ SecondsPath: '$.waitSeconds' }, unguarded))).toEqual([
        'Pause: SecondsPath: a rule of Route reaches it without IsPresent and IsNumeric on $.waitSeconds',
      ]);
      expect(
        aslProblems(waitMachine({ SecondsPath: '$.waitSeconds' }, guarded, { Default: 'Pause' })),
      ).toEqual(["Pause: SecondsPath: Route's Default reaches it without checking $.waitSeconds"]);
      const plain = {
        StartAt: 'Go',
        States: {
          Go: { Type: 'Pass', Next: 'Pause' },
          Pause: { Type: 'Wait', SecondsPath: '$.s', End: true },
        },
      };
      expect(aslProblems(plain)).toEqual([
        'Pause: SecondsPath: Go reaches it unguarded (only a Choice that checks $.s)',
      ]);
    });

    it('reports Seconds out of range and a Wait with two or no durations', () => {
      expect(aslProblems(waitMachine({ Seconds: 100_000_000 }, guarded))).toEqual([
        'Pause: Seconds: must be an integer from 0 to 99999999',
      ]);
      expect(aslProblems(waitMachine({ Seconds: 5, SecondsPath: '$.waitSeconds' }, guarded))).toContain(
        'Pause: Wait: must have exactly one of Seconds, Timestamp, SecondsPath, TimestampPath',
      );
      expect(aslProblems(waitMachine({}, guarded))).toEqual([
        'Pause: Wait: must have exactly one of Seconds, Timestamp, SecondsPath, TimestampPath',
      ]);
    });
  });
});
